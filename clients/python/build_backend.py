"""Builds gateway_client-0.1.7-py3-none-any.whl and gateway_client-0.1.7.tar.gz with the standard
library alone. It is also the package's PEP 517 build backend (pyproject.toml), so pip installs the
source archive offline, with no setuptools or wheel to download."""
from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gateway_client._version import __version__ as VERSION  # noqa: E402

NAME = "gateway_client"
DIST = "gateway-client"
# Fixed timestamps make the archives reproducible: the same sources give the same bytes.
EPOCH = (2026, 1, 1, 0, 0, 0)


def package_files() -> list[Path]:
    return sorted(p for p in (HERE / NAME).rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def metadata() -> str:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {DIST}\nVersion: {VERSION}\n"
        "Summary: Python client for the model gateway (synchronous, standard library only)\n"
        "Requires-Python: >=3.10\nLicense: Proprietary\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(out: Path) -> Path:
    target = out / f"{NAME}-{VERSION}-py3-none-any.whl"
    info = f"{NAME}-{VERSION}.dist-info"
    entries: list[tuple[str, bytes]] = [(p.relative_to(HERE).as_posix(), p.read_bytes()) for p in package_files()]
    entries += [
        (f"{info}/METADATA", metadata().encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: gateway-client build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/top_level.txt", f"{NAME}\n".encode()),
    ]
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data in entries) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries + [(f"{info}/RECORD", record.encode())]:
            wheel.writestr(zipfile.ZipInfo(name, EPOCH), data, zipfile.ZIP_DEFLATED)
    return target


def _sdist(out: Path) -> Path:
    target = out / f"{NAME}-{VERSION}.tar.gz"
    root = f"{NAME}-{VERSION}"
    files = [(p.relative_to(HERE).as_posix(), p.read_bytes()) for p in package_files()]
    files += [(name, (HERE / name).read_bytes()) for name in ("pyproject.toml", "README.md", "build_backend.py")]
    files.append(("PKG-INFO", metadata().encode()))
    with tarfile.open(target, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in sorted(files):
            member = tarfile.TarInfo(f"{root}/{name}")
            member.size, member.mtime, member.mode = len(data), 1767225600, 0o644
            tar.addfile(member, io.BytesIO(data))
    return target


# PEP 517 hooks ---------------------------------------------------------------------------------
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-redef]
    return _wheel(Path(wheel_directory)).name


def build_sdist(sdist_directory, config_settings=None):  # type: ignore[no-redef]
    return _sdist(Path(sdist_directory)).name


def main(out_dir: str) -> None:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for path in (_wheel(out), _sdist(out)):
        print(path)
