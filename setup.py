"""Build of skonline's compiled kernels (Cython); everything else is in pyproject.toml.

Cython, NumPy and SciPy are build-time requirements only (pyproject's
[build-system]): the extensions call BLAS and LAPACK through
``scipy.linalg.cython_blas`` / ``cython_lapack`` and need no library at link time.

``SKONLINE_BOUNDSCHECK=1`` builds every extension with Cython's index checks
(``boundscheck``, ``initializedcheck``), so an out-of-bounds memoryview access
raises ``IndexError`` instead of reading or writing past a buffer; CI's test run
uses it, and the fuzz tests (``tests/test_fuzz_kernels.py``) report such an
error as a failure. ``wraparound`` stays off in that build: the kernels are
written for it off, and with it on a stray index ``-1`` would silently read the
last element instead of raising. The default build is unchanged. Switch builds
with ``python setup.py build_ext --inplace --force``.
"""

import os

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

BOUNDSCHECK = os.environ.get("SKONLINE_BOUNDSCHECK", "0") not in ("", "0")
CHECKED_DIRECTIVES = {"boundscheck": True, "wraparound": False, "initializedcheck": True}


def _force_module_directives(directives):
    """Make ``directives`` win over a module's ``# cython:`` header comment.

    Cython lets a header comment override ``compiler_directives``, and the
    kernels' headers turn ``boundscheck`` off; the checked build must not depend
    on every header staying silent about it.
    """
    from Cython.Compiler.ParseTreeTransforms import InterpretCompilerDirectives

    visit = InterpretCompilerDirectives.visit_ModuleNode

    def visit_module(self, node):
        node.directive_comments.update(directives)
        return visit(self, node)

    InterpretCompilerDirectives.visit_ModuleNode = visit_module


if BOUNDSCHECK:
    COMPILER_DIRECTIVES.update(CHECKED_DIRECTIVES)
    _force_module_directives(CHECKED_DIRECTIVES)

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

# The checked build writes its C files apart, so switching builds never compiles
# one build's generated C under the other's name (pass --force to build_ext).
setup(
    ext_modules=cythonize(
        EXTENSIONS,
        compiler_directives=COMPILER_DIRECTIVES,
        build_dir="build/boundscheck" if BOUNDSCHECK else None,
    )
)
