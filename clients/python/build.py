"""``python3 build.py [OUT_DIR]``: writes the wheel and the source archive (default ../dist)."""
import sys
from pathlib import Path

from build_backend import main

main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parent.parent / "dist"))
