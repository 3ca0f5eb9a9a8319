"""kernelNanoBench: nanoBench's module name for the same functions, so that
`from kernelNanoBench import *` scripts run unchanged against nanoBench-EFI
(see nanobench_efi and docs/python.md)."""

from nanobench_efi.api import *  # noqa: F401,F403
from nanobench_efi.api import __all__  # noqa: F401
