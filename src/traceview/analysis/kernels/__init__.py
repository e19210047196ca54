"""Compiled (numba) kernels and the jit wrapper: the only room that imports numba."""
