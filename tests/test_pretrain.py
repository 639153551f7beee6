"""The ``pretrain`` command (lamalib.experiments.pretrain) in the quick profile: the
segments and their step order, resuming to the same weights, the exported encoder
loaded back offline, checksums, attention weights and the command's errors."""

import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file

from lamalib.data.segments import StepBatches, pack_segments
from lamalib.data.subword import train_subword_tokenizer
from lamalib.experiments.pretrain import QUICK, PretrainConfig, pretrain, results_name
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.models.pretrained import (ChecksumMismatch, EncoderUnavailable,
                                       encoder_attention, load_course_encoder)

TINY = {**QUICK, "vocab_size": 300, "d_model": 32, "d_ff": 64, "max_len": 32,
        "steps": 6, "batch_size": 8, "eval_every": 2, "valid_segments": 8}


def test_pack_segments_by_hand():
    seg = pack_segments([[5, 6, 7], [], [8]], length=5, cls_id=2, sep_id=3)
    # stream 5 6 7 [SEP] 8 [SEP], windows of 3, each [CLS] .. [SEP], last padded
    assert seg.tolist() == [[2, 5, 6, 7, 3], [2, 3, 8, 3, 3]]
    seg = pack_segments([[5, 6, 7, 8]], length=5, cls_id=2, sep_id=3)
    assert seg.tolist() == [[2, 5, 6, 7, 3], [2, 8, 3, 3, 0]]


def test_step_batches_depend_only_on_the_step():
    segments = torch.arange(1, 1 + 10 * 4).reshape(10, 4)
    a = StepBatches(segments, batch_size=3, steps=7, chunk=3, seed=1)
    b = StepBatches(segments, batch_size=3, steps=7, chunk=3, seed=1)
    assert a.epochs == 3 and list(a.step_range(3)) == [7]
    order = [a.rows(s).tolist() for s in range(1, 8)]
    assert [b.rows(s).tolist() for s in (7, 2, 5)] == [order[6], order[1], order[4]]
    first_pass = sum(order[:3], [])  # 3 full batches of a 10-row pass
    assert len(set(first_pass)) == 9
    b.set_epoch(2)
    assert [batch.index.tolist() for batch in b] == order[3:6]
    assert a.tokens_seen(2) == 2 * 3 * 4


def test_selected_positions_give_the_full_logits_rows():
    torch.manual_seed(0)
    model = MaskedLM(50, d_model=16, n_heads=2, n_layers=1, d_ff=32).eval()
    tokens = torch.randint(5, 50, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.bool)
    selected = torch.rand(2, 7) < 0.5
    full = model(tokens, mask)  # (B, T, V)
    assert torch.allclose(model(tokens, mask, selected), full[selected], atol=1e-5)


def _run(tmp_path, name, tokenizer=None, **kw):
    config = PretrainConfig(**{**TINY, **kw})
    return pretrain(config, tmp_path / name / "ck", tmp_path / name / "out",
                    tmp_path / name / "res", argv=["pretrain"], device="cpu",
                    tokenizer_file=tokenizer)


def test_export_load_round_trip_and_results(tmp_path):
    result = _run(tmp_path, "a")
    out = tmp_path / "a" / "out"
    saved = json.loads((tmp_path / "a" / "res" / results_name("lee")).read_text())
    assert saved["steps"] == 6 and [r["step"] for r in saved["history"]] == [2, 4, 6]
    assert saved["tokens_seen"] > 0 and saved["command"].startswith("LAMALIB_PROFILE=")
    assert str(tmp_path) not in json.dumps(saved)  # no machine path
    assert (out / "MODEL_CARD.md").read_text().count(saved["command"]) == 1
    model, tok = load_course_encoder(out)
    assert not model.training and len(tok) == result["tokenizer"]["vocab_size"]
    # the same weights in float32, logits within float16 rounding
    state = load_file(str(out / "model.safetensors"))
    assert all(v.dtype == torch.float16 for v in state.values())
    sizes = json.loads((out / "config.json").read_text())["config"]
    fresh = MaskedLM(len(tok), **sizes)
    fresh.load_state_dict({k: v.float() for k, v in state.items()})
    ids = torch.tensor([tok.encode("the minister said on tuesday", add_cls=True)])
    mask = torch.ones_like(ids, dtype=torch.bool)
    with torch.no_grad():
        assert torch.allclose(model(ids, mask), fresh.eval()(ids, mask))
    tokens, weights = encoder_attention(model, tok, "the minister said on tuesday")
    L, H = TINY["n_layers"], TINY["n_heads"]
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert weights.shape == (L, H, len(tokens), len(tokens))
    assert torch.allclose(weights.sum(-1), torch.ones(L, H, len(tokens)), atol=1e-5)
    long = " ".join(["word"] * 200)
    assert encoder_attention(model, tok, long)[1].shape[-1] == TINY["max_len"]


def test_float16_export_keeps_the_trained_logits(tmp_path):
    """A model trained a little, exported in float16 and loaded back, predicts as the
    float32 model did, within float16 rounding."""
    from lamalib.data.datasets.pretraining import pretraining_texts
    from lamalib.data.segments import segment_batch
    from lamalib.models.pretrained import save_encoder

    docs, _ = pretraining_texts("lee", 20)
    tok = train_subword_tokenizer(docs[:60], vocab_size=300)
    segments = pack_segments(tok.encode_batch(docs[:60]), 32, tok.cls_id, tok.sep_id)
    torch.manual_seed(0)
    model = MaskedLM(len(tok), d_model=32, n_heads=2, n_layers=2, d_ff=64, max_len=32,
                     dropout=0.0)
    step = MaskedLMStep(tok.mask_id, len(tok), tok.special_ids)
    optimizer = torch.optim.AdamW(model.parameters(), 3e-3)
    for i in range(20):
        loss = step(model, segment_batch(segments, torch.arange(8 * i, 8 * i + 8))).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    save_encoder(model, tok, tmp_path / "enc")
    loaded, tok2 = load_course_encoder(tmp_path / "enc")
    assert tok2.itos == tok.itos
    batch = segment_batch(segments, torch.arange(200, 216))
    with torch.no_grad():
        before = model(batch.tokens, batch.mask)  # (B, T, V)
        after = loaded(batch.tokens, batch.mask)
    assert torch.allclose(before, after, rtol=1e-2, atol=2e-2)
    agree = (before.argmax(-1) == after.argmax(-1)).float().mean()
    assert agree > 0.98


def test_checksum_mismatch_and_missing_files_are_refused(tmp_path):
    _run(tmp_path, "c", steps=2)
    out = tmp_path / "c" / "out"
    data = bytearray((out / "model.safetensors").read_bytes())
    data[-1] ^= 1
    (out / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatch, match="SHA-256"):
        load_course_encoder(out)
    with pytest.raises(EncoderUnavailable, match="pretrain"):
        load_course_encoder(tmp_path / "nothing")


class _Stop(Exception):
    pass


def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path):
    first = _run(tmp_path, "s")
    # tokenizers' trainer may break ties differently in another training: both runs
    # read the first run's tokenizer, as a repetition of a shipped run does
    tok = tmp_path / "s" / "out" / "tokenizer.json"
    straight = _run(tmp_path, "s2", tokenizer=tok)
    assert straight["tokenizer"]["given"] and not first["tokenizer"]["given"]

    def interrupt(epoch, history, model):
        if epoch == 2:
            raise _Stop  # after the checkpoint of update 4

    config = PretrainConfig(**TINY)
    with pytest.raises(_Stop):
        pretrain(config, tmp_path / "r" / "ck", tmp_path / "r" / "out", None,
                 device="cpu", callbacks=[interrupt], tokenizer_file=tok)
    resumed = _run(tmp_path, "r")  # the checkpoint folder keeps the tokenizer

    def curve(result):
        return [{k: v for k, v in r.items() if k != "seconds"}
                for r in result["history"]]

    assert curve(resumed) == curve(straight)
    assert (resumed["weights"]["files"]["model.safetensors"]
            == straight["weights"]["files"]["model.safetensors"])
    # other settings in the same checkpoint folder: refused, one line
    with pytest.raises(SystemExit, match="steps 6 -> 8"):
        _run(tmp_path, "r", steps=8)
    other = tmp_path / "other.json"
    train_subword_tokenizer(["a tiny other corpus"], vocab_size=40).save(other)
    with pytest.raises(SystemExit, match="another tokenizer"):
        _run(tmp_path, "r", tokenizer=other)


@pytest.mark.parametrize("args,words", [
    (["--corpus", "wiki"], "--corpus wiki"),
    (["--steps", "0"], "--steps 0"),
    (["--batch-size", "-3"], "--batch-size -3"),
])
def test_command_errors_are_one_line(tmp_path, args, words):
    done = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments", "pretrain", *args,
         "--checkpoints", str(tmp_path), "--results", str(tmp_path)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and words in done.stderr
    assert "Traceback" not in done.stderr


def test_the_full_size_fits_15_mb_in_float16():
    config = PretrainConfig()
    model = MaskedLM(config.vocab_size, **config.model_options())
    assert 2 * sum(p.numel() for p in model.parameters()) <= 15e6


def test_the_shipped_encoder_loads_or_says_how_to_make_it():
    from lamalib.models.pretrained import COURSE_ENCODER_DIR

    if (COURSE_ENCODER_DIR / "model.safetensors").exists():
        model, tok = load_course_encoder()  # checksums verified
        assert not model.training and tok.mask_id == 4
    else:
        with pytest.raises(EncoderUnavailable, match="lamalib.experiments pretrain"):
            load_course_encoder()


def test_a_text_longer_than_the_encoder_is_cut_with_its_sep_kept_last():
    from lamalib.models.pretrained import cut_to_length

    cls, sep = 2, 3
    ids = [cls, 10, 11, 12, 13, sep]
    assert cut_to_length(ids, 6, sep) == ids  # fits: unchanged
    assert cut_to_length(ids, 4, sep) == [cls, 10, 11, sep]
    assert cut_to_length(ids, 5, sep) == [cls, 10, 11, 12, sep]
