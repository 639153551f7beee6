"""A results file's code identity (lamalib.provenance.code_hash / code_identity): the
same code gives the same hash anywhere, and any change to a code file changes it."""

import shutil

from lamalib import provenance
from lamalib.provenance import code_hash, code_identity


def _copy(tmp_path):
    src = provenance.REPO_ROOT / "lamalib"
    dst = tmp_path / "lamalib"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__",
                                                            "*.safetensors"))
    return dst


def test_the_same_code_anywhere_has_the_same_hash(tmp_path):
    copy = _copy(tmp_path)
    assert code_hash(copy) == code_hash() == code_identity()["sha256"]
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.pyc").write_bytes(b"cache")  # not code
    (copy / "weights.bin").write_bytes(b"data")  # not code either
    assert code_hash(copy) == code_hash()


def test_any_change_to_a_code_file_changes_the_hash(tmp_path):
    copy = _copy(tmp_path)
    before = code_hash(copy)
    f = copy / "nn" / "attention" / "__init__.py"
    f.write_text(f.read_text() + "\n")
    assert code_hash(copy) != before
    f.write_text(f.read_text()[:-1])
    assert code_hash(copy) == before
    (copy / "nn" / "attention" / "__init__.py").rename(copy / "nn" / "moved.py")
    assert code_hash(copy) != before  # the same bytes under another name


def test_a_results_file_records_the_code_identity(tmp_path):
    stamp = provenance.RunStamp()
    fields = stamp.fields(["--x"], "python tool.py")
    assert fields["code"]["sha256"] == code_hash()
    assert set(fields["code"]) == {"sha256", "diff"}
