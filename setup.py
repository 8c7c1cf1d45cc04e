"""The compiled core of the Python package, mgedump._core, built by CMake.

pyproject.toml holds the package's metadata; this file only adds the extension,
whose build_ext configures the repository with CMake (Release, without tests and
benchmarks, for the interpreter running this build) and builds the target
mgedump_python. Environment:
  MGEDUMP_CMAKE_BUILD_DIR  an existing or new CMake build directory to use
                           (tools/package_test.sh reuses its Release build)
  MGEDUMP_CMAKE_ARGS       more arguments for the configure step, space-separated
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: every CPU)
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(mgedump VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("MGEDUMP_CMAKE_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        configure = ["cmake", "-S", ROOT, "-B", build_dir, f"-DMGEDUMP_PYTHON={sys.executable}", "-DMGEDUMP_BUILD_PYTHON=ON"]
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure += ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                          "-DMGEDUMP_BUILD_TESTS=OFF", "-DMGEDUMP_BUILD_BENCH=OFF"]
        configure += os.environ.get("MGEDUMP_CMAKE_ARGS", "").split()
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build_dir, "--target", "mgedump_python", "-j", jobs], check=True)

        built = os.path.join(build_dir, "python", "mgedump", os.path.basename(self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        # Symbols and any debug info stay in the build directory; the wheel gets the code.
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-unneeded", target], check=True)


setup(
    version=project_version(),
    ext_modules=[Extension("mgedump._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not ./build, the CMake build directory of tools/build.sh.
    options={"build": {"build_base": "build-python"}},
)
