"""Build of skonline's compiled kernels (Cython); everything else is in pyproject.toml.

Cython, NumPy and SciPy are build-time requirements only (pyproject's
[build-system]): the extensions call BLAS and LAPACK through
``scipy.linalg.cython_blas`` / ``cython_lapack`` and need no library at link time.
"""

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "nonecheck": False,
}

EXTENSIONS = [
    Extension("skonline.linear_model._loss", ["skonline/linear_model/_loss.pyx"]),
    Extension("skonline.linear_model._rows", ["skonline/linear_model/_rows.pyx"]),
    Extension(
        "skonline.linear_model._son_fast",
        ["skonline/linear_model/_son_fast.pyx"],
    ),
    Extension(
        "skonline.linear_model._scale_invariant_fast",
        ["skonline/linear_model/_scale_invariant_fast.pyx"],
    ),
    Extension(
        "skonline.decomposition._frequent_directions_fast",
        ["skonline/decomposition/_frequent_directions_fast.pyx"],
    ),
    Extension("skonline.decomposition._density_fast", ["skonline/decomposition/_density_fast.pyx"]),
    Extension("skonline.decomposition._capping_fast", ["skonline/decomposition/_capping_fast.pyx"]),
    Extension(
        "skonline.manifold._curve_fast",
        ["skonline/manifold/_curve_fast.pyx"],
    ),
]

for ext in EXTENSIONS:
    ext.include_dirs.append(np.get_include())
    ext.define_macros.append(("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION"))
    ext.extra_compile_args += ["-O3", "-funroll-loops"]

setup(ext_modules=cythonize(EXTENSIONS, compiler_directives=COMPILER_DIRECTIVES))
