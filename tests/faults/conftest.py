import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from infrastructure import PostgresServer  # noqa: E402


def pytest_collection_modifyitems(config, items):
    missing = [tool for tool in ("nginx", "haproxy", "psql") if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists()]
    if missing:
        skip = pytest.mark.skip(reason=f"needs {', '.join(missing)} (scripts/test.sh installs them)")
        for item in items:
            item.add_marker(skip)


@pytest.fixture
def postgres():
    """A PostgreSQL server of the test's own, which it may restart, stop or kill."""
    server = PostgresServer()
    yield server
    server.stop()
