"""_kernels.light"""
