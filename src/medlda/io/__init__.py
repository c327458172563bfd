"""Files: atomic writes that never leave a half-written file (``atomic``) and model files of
arrays and JSON, read without executing code (``model_file``)."""
