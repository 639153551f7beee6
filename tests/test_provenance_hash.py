"""The code hash a results file carries (lamalib.provenance.code_hash, RunStamp) on tiny
packages built here: file names count, every code suffix counts, and the stamp a run
writes keeps it."""

import pytest

from lamalib import provenance
from lamalib.provenance import CODE_SUFFIXES, RunStamp, code_hash, code_identity


def package(tmp_path, name, files):
    root = tmp_path / name
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_same_bytes_under_another_name_are_other_code(tmp_path):
    # one file each, the same bytes: only the name tells them apart
    a = package(tmp_path, "a", {"run.py": "x = 1\n"})
    b = package(tmp_path, "b", {"walk.py": "x = 1\n"})
    assert code_hash(a) != code_hash(b)
    assert code_hash(a) == code_hash(package(tmp_path, "c", {"run.py": "x = 1\n"}))


@pytest.mark.parametrize("suffix", [".py", ".json", ".js", ".css"])
def test_a_change_to_any_code_file_changes_the_hash(tmp_path, suffix):
    assert suffix in CODE_SUFFIXES
    files = {"m.py": "x = 1\n", f"assets/data{suffix}": "1"}
    before = code_hash(package(tmp_path, "a", files))
    after = code_hash(package(tmp_path, "b", {**files, f"assets/data{suffix}": "2"}))
    assert before != after


def test_a_run_stamp_records_the_code_identity():
    fields = RunStamp().fields(["reproduce", "lama"], "python -m lamalib.experiments")
    assert fields["code"] == code_identity()
    assert fields["code"]["sha256"] == code_hash(provenance.REPO_ROOT / "lamalib")
