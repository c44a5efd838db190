"""hipify-py: port CUDA source code to HIP (ROCm)."""

__version__ = "0.5.0"
