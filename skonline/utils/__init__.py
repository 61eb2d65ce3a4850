"""Kernels shared across estimator families, and the reusable online checks."""
