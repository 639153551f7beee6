"""tools/bert_attention_distance.py: a Hugging Face BERT's attention distances, checked
against a sentence-by-sentence brute force on a tiny random BERT saved to a folder (as
a reader's local copy of bert-base-uncased would be), and its offline failure."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

transformers = pytest.importorskip("transformers")

from lamalib.data.registry import load_dataset  # noqa: E402
from tiny_bert import saved_tiny_bert  # noqa: E402

TOOL = Path(__file__).resolve().parents[1] / "tools" / "bert_attention_distance.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("bert_attention_distance", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_distances_match_a_sentence_by_sentence_brute_force(tmp_path):
    folder = saved_tiny_bert(tmp_path / "tiny-bert")
    tool = load_tool()
    record = tool.main(["--model", str(folder), "--dataset", "movie_reviews",
                        "--split", "test", "--max-sentences", "24", "--max-length",
                        "20", "--batch-size", "8", "--out", str(tmp_path / "out")])
    written = json.loads((tmp_path / "out" / "tiny-bert__movie_reviews.json").read_text())
    assert written["distances"] == json.loads(json.dumps(record["distances"]))
    assert written["model_config"] == {"layers": 2, "heads": 2, "hidden": 16}

    # brute force: one sentence at a time (no padding), distances from the weights
    model = transformers.BertModel.from_pretrained(folder, attn_implementation="eager")
    tokenizer = transformers.BertTokenizer.from_pretrained(folder)
    sums = torch.zeros(2, 2)  # (L, H) sums of |i - argmax|
    expected_sums, chance_sum, local, count = torch.zeros(2, 2), 0.0, torch.zeros(2), 0
    for text in load_dataset("movie_reviews", "test").texts[:24]:
        ids = tokenizer(text, truncation=True, max_length=20)["input_ids"]
        with torch.no_grad():
            att = model(torch.tensor([ids]), output_attentions=True).attentions
        T = len(ids)
        dist = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).abs()
        for layer, a in enumerate(att):
            arg = (torch.arange(T) - a[0].argmax(-1)).abs()  # (H, T)
            sums[layer] += arg.sum(-1)
            expected_sums[layer] += (a[0] * dist).sum((-1, -2))
            local[layer] += (arg <= 1).sum()
        chance_sum += dist.float().mean(-1).sum().item()
        count += T
    summary = record["distances"]["pretrained"]["summary"]
    for layer, row in enumerate(summary):
        assert row["mean_argmax"] == pytest.approx(sums[layer].mean().item() / count)
        assert row["mean_expected"] == pytest.approx(
            expected_sums[layer].mean().item() / count, rel=1e-5)
        assert row["share_local"] == pytest.approx(local[layer].item() / (2 * count))
        assert row["chance"] == pytest.approx(chance_sum / count, rel=1e-6)
    assert record["distances"]["pretrained"]["queries"] == count


def test_offline_without_a_copy_stops_fast_with_one_line_and_code_2(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tool = load_tool()
    with pytest.raises(SystemExit) as stop:
        tool.main(["--model", "lamalib-tests/no-such-bert", "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--model lamalib-tests/no-such-bert" in err and "--model FOLDER" in err
    assert not list(tmp_path.iterdir())
