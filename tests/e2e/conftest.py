import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from varsel_server import VarselServer  # noqa: E402


@pytest.fixture
def server(tmp_path):
    """A real `varsel serve --demo` on a temporary SQLite file."""
    instance = VarselServer(database=tmp_path / "varsel.sqlite").start()
    yield instance
    instance.stop()
