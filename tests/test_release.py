"""The release a user installs: license, changelog, sdist and wheel, and the
wheel working in a fresh virtual environment (not editable)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import skgate

tomllib = pytest.importorskip("tomllib")  # the standard library's from 3.11
ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def test_license_is_the_declared_one():
    assert PROJECT["license"] == "BSD-3-Clause"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text


def test_the_version_is_written_once_and_the_metadata_carries_it():
    """skgate.__version__ is the version: pyproject.toml reads it (no
    version of its own), and the metadata of a wheel built from this
    checkout, which pip records and importlib.metadata reads, is it."""
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]
    assert dynamic["version"] == {"attr": "skgate.__version__"}
    pytest.importorskip("setuptools")  # the build backend, run in this process
    from build.util import project_wheel_metadata

    metadata = project_wheel_metadata(ROOT, isolated=False)
    assert (metadata["Name"], metadata["Version"]) == ("skgate", skgate.__version__)


def _changelog_sections():
    """CHANGELOG.md's second-level headings, in order: (name, date or None)."""
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "Keep a Changelog" in text
    headings = re.findall(r"^## (.*)$", text, re.MULTILINE)
    sections = []
    for heading in headings:
        match = re.fullmatch(r"\[([^]]+)\](?: - (\d{4}-\d\d-\d\d))?", heading)
        assert match, f"not a section heading of Keep a Changelog: {heading!r}"
        sections.append(match.groups())
    return sections


def test_the_changelog_agrees_with_the_version():
    """A development version (0.2.0.dev0) is unreleased work: the
    changelog's top section is "Unreleased", above the last release, which
    is older. A release version (0.2.0) is the top section, with its date.
    Released sections carry dates and go from the newest down."""
    from packaging.version import Version

    version = Version(skgate.__version__)
    (top, top_date), *released = _changelog_sections()
    assert all(date for _, date in released), released
    versions = [Version(name) for name, _ in released]
    assert versions == sorted(versions, reverse=True) and versions
    if version.is_devrelease or version.is_prerelease:
        assert (top, top_date) == ("Unreleased", None), top
        assert versions[0] < version, (versions[0], version)
    else:
        assert top == skgate.__version__ and top_date, (top, top_date)
        assert versions[0] < version


def _run(*command, cwd=ROOT):
    return subprocess.run(
        command, cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", str(out))
    return out


@pytest.mark.slow
def test_sdist_and_wheel_pass_twine(dists):
    names = sorted(p.name for p in dists.iterdir())
    version = skgate.__version__
    assert names == [f"skgate-{version}-py3-none-any.whl", f"skgate-{version}.tar.gz"]
    checked = _run(
        sys.executable, "-m", "twine", "check", "--strict", *map(str, dists.iterdir())
    )
    assert checked.count("PASSED") == 2


@pytest.mark.slow
def test_the_wheel_is_the_library_without_the_study(dists):
    """The installed package is the library: the wheel holds skgate's
    modules and no module of the reproduction study (benchmarks/study)."""
    import zipfile

    (wheel,) = dists.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    modules = [n for n in names if n.endswith(".py")]
    assert "skgate/estimators.py" in modules and "skgate/_engine/spec.py" in modules
    assert not [n for n in names if "study" in n.split("/")[0:2] or "/study/" in n]
    assert all(n.startswith("skgate/") for n in modules)


@pytest.mark.slow
def test_the_wheel_runs_the_quickstart_in_a_fresh_environment(dists, tmp_path):
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", str(venv))
    python = str(venv / "bin" / "python")
    (wheel,) = dists.glob("*.whl")
    _run(
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "-c",
        str(ROOT / "constraints.txt"),
        str(wheel),
    )
    where = _run(python, "-c", "import skgate; print(skgate.__file__)", cwd=tmp_path)
    assert "site-packages" in where  # the wheel's copy, not this checkout
    printed = _run(python, str(ROOT / "examples" / "quickstart.py"), cwd=tmp_path)
    assert "held-out accuracy" in printed
