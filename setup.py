"""Builds the edgefold Python package with the project's CMake (python/CMakeLists.txt) for the
interpreter running pip, then packages <cmake build>/python/edgefold/.

    python3 -m venv --system-site-packages venv && venv/bin/pip install --no-build-isolation .

Environment: EDGEFOLD_PIP_BUILD_DIR (the CMake build; default build-pip/, kept between installs
so CMake reuses it), JOBS (default 2).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("EDGEFOLD_PIP_BUILD_DIR", os.path.join(ROOT, "build-pip"))


class CMakeBuild(build_ext):
    """One extension, edgefold._edgefold, built by CMake instead of setuptools' compiler."""

    def build_extension(self, ext):
        cmake_build = BUILD   # at the depth of build/, so ccache (CCACHE_BASEDIR) shares its objects
        configure = ["cmake", "-S", ROOT, "-B", cmake_build, "-DCMAKE_BUILD_TYPE=Release",
                     "-DEDGEFOLD_BUILD_TESTS=OFF", "-DEDGEFOLD_BUILD_PYTHON=ON",
                     f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        env = dict(os.environ)
        if shutil.which("ccache") and env.get("EDGEFOLD_CCACHE", "1") == "1":
            configure += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            env.setdefault("CCACHE_BASEDIR", ROOT)
        subprocess.run(configure, check=True, env=env)
        subprocess.run(["cmake", "--build", cmake_build, "--target", "edgefold_python", "-j",
                        os.environ.get("JOBS", "2")], check=True, env=env)
        package = os.path.join(cmake_build, "python", "edgefold")
        built = [f for f in os.listdir(package) if f.startswith("_edgefold") and f.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"expected one _edgefold*.so in {package}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, built[0]), target)


os.makedirs(BUILD, exist_ok=True)
setup(
    packages=["edgefold"],
    package_dir={"": "python"},
    ext_modules=[Extension("edgefold._edgefold", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join(BUILD, "setuptools")},
             "egg_info": {"egg_base": BUILD}},
)
