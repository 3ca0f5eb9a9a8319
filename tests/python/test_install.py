"""The package installs with pip into a virtual environment and imports there
(both names), away from the tree."""

import os
import shutil
import subprocess
import sys

from conftest import ROOT


def test_pip_install_into_venv(tmp_path):
    venv = tmp_path / 'venv'
    # Offline: Debian's setuptools and wheel (python3-setuptools, python3-wheel) build it,
    # seen from the venv through --system-site-packages.
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', str(venv)], check=True)
    py = str(venv / 'bin' / 'python')
    # From a copy: setuptools writes its egg-info next to the sources.
    src = tmp_path / 'src'
    shutil.copytree(os.path.join(ROOT, 'python'), str(src), ignore=shutil.ignore_patterns('__pycache__'))
    subprocess.run([py, '-m', 'pip', 'install', '--quiet', '--no-index', '--no-build-isolation', str(src)],
                   check=True, cwd=str(tmp_path))
    out = subprocess.run([py, '-c', 'import nanobench_efi, kernelNanoBench; '
                          'from kernelNanoBench import *; print(runNanoBench.__module__, '
                          'sorted(nanobench_efi.__all__) == sorted(kernelNanoBench.__all__))'],
                         check=True, cwd=str(tmp_path), capture_output=True, text=True,
                         env={'PATH': os.environ['PATH']}).stdout
    assert out.split() == ['nanobench_efi.api', 'True']
