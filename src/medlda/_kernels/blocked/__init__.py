"""_kernels.blocked"""
