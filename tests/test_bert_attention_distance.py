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
    cls_hits, sep_hits, sink_chance, chance_local_sum = (torch.zeros(2), torch.zeros(2),
                                                         0.0, 0.0)
    word_sums, word_chance, word_count = torch.zeros(2, 2), 0.0, 0
    norm_sums = torch.zeros(2, 2)
    for text in load_dataset("movie_reviews", "test").texts[:24]:
        ids = tokenizer(text, truncation=True, max_length=20)["input_ids"]
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True,
                        output_hidden_states=True)
        att = out.attentions
        T = len(ids)
        dist = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).abs()
        words = torch.arange(1, T - 1)  # [CLS] first, [SEP] last
        for layer, a in enumerate(att):
            arg = (torch.arange(T) - a[0].argmax(-1)).abs()  # (H, T)
            sums[layer] += arg.sum(-1)
            expected_sums[layer] += (a[0] * dist).sum((-1, -2))
            local[layer] += (arg <= 1).sum()
            cls_hits[layer] += (a[0].argmax(-1) == 0).sum()
            sep_hits[layer] += (a[0].argmax(-1) == T - 1).sum()
            inner = a[0][:, 1:T - 1, 1:T - 1]  # (H, n, n): words over words
            word_arg = (words - 1 - inner.argmax(-1)).abs()  # renormalising keeps it
            word_sums[layer] += word_arg.sum(-1)
            # Kobayashi: alpha_ij ||(x_j W_V + b_V)_h W_O^h||, from the layer's input
            block = model.encoder.layer[layer].attention
            v = block.self.value(out.hidden_states[layer][0]).view(T, 2, 8)  # (T,H,dh)
            w_o = block.output.dense.weight.view(16, 2, 8)  # (D, H, dh)
            f = torch.stack([v[:, h] @ w_o[:, h].T for h in range(2)])  # (H, T, D)
            moved = a[0] * f.norm(dim=-1)[:, None, :]  # (H, T, T)
            moved = moved / moved.sum(-1, keepdim=True)
            norm_sums[layer] += (moved * dist).sum((-1, -2))
        chance_sum += dist.float().mean(-1).sum().item()
        chance_local_sum += (dist <= 1).float().mean(-1).sum().item()
        sink_chance += T * (1 / T)  # one [CLS] and one [SEP] in every sentence
        n = T - 2
        word_chance += dist[1:T - 1, 1:T - 1].float().mean(-1).sum().item()
        word_count += n
        count += T
    summary = record["distances"]["pretrained"]["summary"]
    for layer, row in enumerate(summary):
        assert row["mean_argmax"] == pytest.approx(sums[layer].mean().item() / count)
        assert row["mean_expected"] == pytest.approx(
            expected_sums[layer].mean().item() / count, rel=1e-5)
        assert row["share_local"] == pytest.approx(local[layer].item() / (2 * count))
        assert row["chance"] == pytest.approx(chance_sum / count, rel=1e-6)
        assert row["chance_local"] == pytest.approx(chance_local_sum / count)
    assert record["distances"]["pretrained"]["queries"] == count
    assert written["sinks"] == json.loads(json.dumps(record["sinks"]))
    for name, hits in (("[CLS]", cls_hits), ("[SEP]", sep_hits)):
        assert record["sinks"][name]["share"] == pytest.approx(
            (hits / (2 * count)).tolist())
        assert record["sinks"][name]["chance"] == pytest.approx(sink_chance / count)
    content = record["distances"]["content"]["summary"]
    for layer, row in enumerate(content):  # the words only, rows renormalised
        assert row["mean_argmax"] == pytest.approx(
            word_sums[layer].mean().item() / word_count)
        assert row["chance"] == pytest.approx(word_chance / word_count, rel=1e-6)
    norm = record["distances"]["norm_weighted"]["summary"]
    for layer, row in enumerate(norm):
        assert row["mean_expected"] == pytest.approx(
            norm_sums[layer].mean().item() / count, rel=1e-4)


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
