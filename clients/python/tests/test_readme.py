"""The README's Python section works as written: `pip install` of its line into a fresh
virtualenv (dependencies from PyPI, as a user gets them; started in the background when the
session starts), then its notebook example, verbatim but for the server's address."""

from __future__ import annotations

import re
import subprocess

from conftest import README, ROOT


def readme_example() -> str:
    text = README.read_text()
    marker = text.index("<!-- tested: python -->")
    m = re.compile(r"```python\n(.*?)```", re.S).search(text, marker)
    assert m, "no ```python block after the <!-- tested: python --> marker"
    return m.group(1)


def test_the_readme_example_runs_in_a_fresh_venv(server, fresh_venv, tmp_path) -> None:
    assert fresh_venv.returncode == 0, fresh_venv.output
    print(f"fresh venv + pip install: {fresh_venv.seconds:.1f} s")
    code = readme_example()
    assert "127.0.0.1:50051" in code
    script = tmp_path / "example.py"
    script.write_text(code.replace("127.0.0.1:50051", server.addr))
    done = subprocess.run(
        [str(fresh_venv.python), str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    out = done.stdout
    assert done.returncode == 0, f"{out}\n{done.stderr}"
    # What the package was imported from: the fresh venv's copy, not this checkout.
    where = subprocess.run(
        [str(fresh_venv.python), "-c", "import aware; print(aware.__file__)"],
        cwd=tmp_path, capture_output=True, text=True,
    ).stdout
    assert str(fresh_venv.dir) in where and str(ROOT) not in where, where

    assert "visits 3 {'city': 'VARCHAR', 'visits': 'BIGINT', 'first_visit': 'DATE'}" in out, out
    assert re.search(r"visits\s+Int64", out) and re.search(r"first_visit\s+datetime64\[us\]", out), out
    assert re.search(r"Reus\s+<NA>\s+2024-05-30", out), out
    assert "highest Sarrià-Sant Gervasi" in out, out
    assert re.search(r"neighbourhood\s+avg_price_eur", out), out
    assert "approving: Delete the dataset “visits.csv”" in out, out
    remaining = out.strip().splitlines()[-1]
    assert "'barcelona_apartments'" in remaining and "'visits'" not in remaining, "the approved delete happened"
    assert "uploading visits.csv" in done.stderr and "100%" in done.stderr, "the progress bar"
