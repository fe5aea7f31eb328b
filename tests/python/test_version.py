"""The package's version is the one in CMakeLists.txt's project() call."""

import re
from importlib import metadata
from pathlib import Path

import quiver as qv

CMAKELISTS = Path(__file__).resolve().parents[2] / "CMakeLists.txt"


def cmake_project_version():
    match = re.search(
        r"project\(quiver\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", CMAKELISTS.read_text()
    )
    assert match, f"no project(quiver VERSION x.y.z) in {CMAKELISTS}"
    return match.group(1)


def test_version_comes_from_cmakelists():
    assert qv.__version__ == cmake_project_version()
    assert qv.__version__ is qv._quiver.__version__


def test_installed_distribution_has_the_same_version():
    # The distribution is quiver-tensors; the module it installs is quiver.
    assert metadata.version("quiver-tensors") == cmake_project_version()
    assert metadata.packages_distributions().get("quiver") == ["quiver-tensors"]
