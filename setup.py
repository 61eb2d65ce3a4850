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

Every compiled extension is also kept in ``build/ext-cache/`` under a key made
of its generated C, the compiler flags, the Python and the NumPy it was built
for: a later ``pip install -e ".[extra]"`` of the same sources reuses it instead
of compiling again (``--force`` or deleting the folder rebuilds).
"""

import hashlib
import os
import shutil
import sys
import sysconfig
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CACHE = Path(__file__).resolve().parent / "build" / "ext-cache"

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
        "skonline.linear_model._calibration_fast", ["skonline/linear_model/_calibration_fast.pyx"]
    ),
    Extension(
        "skonline.linear_model._son_fast",
        ["skonline/linear_model/_son_fast.pyx"],
        depends=["skonline/linear_model/_son_math.h", "skonline/linear_model/_simd.h"],
        include_dirs=["skonline/linear_model"],  # _son_math.h, also from build/boundscheck
        extra_compile_args=["-ffp-contract=off"],  # its CPU clones: the same operations
    ),
    Extension(
        "skonline.linear_model._scale_invariant_fast",
        ["skonline/linear_model/_scale_invariant_fast.pyx"],
        depends=["skonline/linear_model/_row_math.h", "skonline/linear_model/_simd.h"],
        include_dirs=["skonline/linear_model"],  # _row_math.h, also from build/boundscheck
        # the CPU clones of _row_math.h (AVX-512 has FMA) do the same operations
        extra_compile_args=["-ffp-contract=off"],
    ),
    Extension(
        "skonline.decomposition._frequent_directions_fast",
        ["skonline/decomposition/_frequent_directions_fast.pyx"],
    ),
    Extension("skonline.decomposition._density_fast", ["skonline/decomposition/_density_fast.pyx"]),
    Extension("skonline.decomposition._capping_fast", ["skonline/decomposition/_capping_fast.pyx"]),
    Extension("skonline.utils._validation_fast", ["skonline/utils/_validation_fast.pyx"]),
    Extension(
        "skonline.manifold._curve_fast",
        ["skonline/manifold/_curve_fast.pyx"],
    ),
]

for ext in EXTENSIONS:
    ext.include_dirs.append(np.get_include())
    ext.define_macros.append(("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION"))
    ext.extra_compile_args += ["-O3", "-funroll-loops"]


def _build_key(ext):
    """Hash of everything the compiled extension depends on (the C embeds .pxd's, not .h's)."""
    digest = hashlib.sha256()
    for source in ext.sources:
        text = Path(source).read_bytes()
        # Cython's metadata header names the (temporary) NumPy include folder
        start, end = text.find(b"BEGIN: Cython Metadata"), text.find(b"END: Cython Metadata")
        digest.update(text[end:] if 0 <= start < end else text)
    for header in ext.depends:  # C headers the generated C includes (not embedded in it)
        if header.endswith(".h"):
            digest.update(Path(header).read_bytes())
    for part in (
        ext.extra_compile_args,
        ext.extra_link_args,
        ext.define_macros,
        sys.version,
        sysconfig.get_config_var("EXT_SUFFIX"),
        sysconfig.get_platform(),
        np.__version__,
        os.environ.get("CC"),
        os.environ.get("CFLAGS"),
        os.environ.get("LDFLAGS"),
    ):
        digest.update(repr(part).encode())
    return digest.hexdigest()[:20]


class CachedBuildExt(build_ext):
    """``build_ext`` that reuses an extension compiled before from the same inputs."""

    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name))
        cached = CACHE / f"{ext.name}-{_build_key(ext)}{target.suffix}"
        if cached.exists() and not self.force:
            target.parent.mkdir(parents=True, exist_ok=True)
            # a fresh modification time: build_ext --inplace copies the build's file over
            # the one in the source tree only when it is newer, so a cached file keeping
            # its old time would leave another version's extension in place
            shutil.copy(cached, target)
            print(f"reusing {ext.name} compiled before ({cached.name})")
            return
        super().build_extension(ext)
        try:  # the cache is a convenience: a read-only tree just compiles every time
            CACHE.mkdir(parents=True, exist_ok=True)
            for stale in CACHE.glob(f"{ext.name}-*"):
                stale.unlink()
            shutil.copy2(target, cached)
        except OSError:
            pass


# The checked build writes its C files apart, so switching builds never compiles
# one build's generated C under the other's name (pass --force to build_ext).
setup(
    cmdclass={"build_ext": CachedBuildExt},
    ext_modules=cythonize(
        EXTENSIONS,
        compiler_directives=COMPILER_DIRECTIVES,
        build_dir="build/boundscheck" if BOUNDSCHECK else None,
    ),
)
