"""Apply each mutant of issue 61 item 8 to this checkout, run the test meant to kill
it (tests/test_mutations_61.py), and revert: prints killed / SURVIVED per mutant.
    python tests/mutants_61.py [NAME ...]
"""
import sys

from mutants import run

T = "tests/test_mutations_61.py::"
M = [
 ("data left out of the run hash", "lamalib/experiments/runner.py",
  'return {"run": record, "data": data,', 'return {"run": record,', T+"test_the_data_is_part_of_a_runs_hash"),
 ("same-cap checkpoint in its own folder", "lamalib/experiments/run_checkpoint.py",
  "if _epochs_in(home) > epochs:", "if _epochs_in(home) >= epochs:", T+"test_a_checkpoint_at_the_same_cap_is_the_runs_own"),
 ("run keys hashed unsorted", "lamalib/experiments/run_checkpoint.py",
  "json.dumps(determines, sort_keys=True,", "json.dumps(determines, sort_keys=False,", T+"test_run_keys_do_not_depend_on_the_order_of_options"),
 ("write permission checked as read", "lamalib/experiments/options.py",
  "if not os.access(base, os.W_OK | os.X_OK):", "if not os.access(base, os.R_OK | os.X_OK):", T+"test_write_permission_is_checked_as_write"),
 ("vectors --save not checked first", "lamalib/experiments/cli.py",
  '    check_output_file("--save", args.save)\n', "", T+"test_vectors_save_is_checked_before_training"),
 ("attention default --max-len x10", "lamalib/experiments/cli.py",
  "ATTENTION_MAX_LEN = 512", "ATTENTION_MAX_LEN = 5120", T+"test_attention_reads_512_tokens_by_default"),
 ("--html ignoring --max-len", "lamalib/experiments/cli.py",
  "_write_view(saved, args.text, Path(args.html), args.max_len,", "_write_view(saved, args.text, Path(args.html), None,", T+"test_attention_html_keeps_to_max_len"),
 ("--max-len 0 accepted", "lamalib/experiments/cli.py",
  '    check_count("--max-len", args.max_len)\n', "", T+"test_attention_max_len_0_is_refused"),
 ("long-text limit x10", "lamalib/data/batching.py",
  "LONG_TEXT_LIMIT = 10_000", "LONG_TEXT_LIMIT = 100_000", T+"test_a_model_without_max_len_reads_10000_tokens"),
 ("evaluate macro over examples", "lamalib/train/metrics.py",
  'return sum(r[key] for r in rows) / len(rows)', 'return sum(r[key] * r["support"] for r in rows) / sum(r["support"] for r in rows)', T+"test_evaluate_macro_average_is_over_classes"),
 ("one text per batch dropped", "lamalib/experiments/model_eval.py",
  "texts[start:start + BATCH]", "texts[start:start + BATCH - 1]", T+"test_evaluate_scores_every_text_of_every_batch"),
 ("test_fraction split with the run's seed", "lamalib/experiments/runner.py",
  "stratified_split(train, spec.test_fraction, seed=0,", "stratified_split(train, spec.test_fraction, seed=spec.seed,", T+"test_the_test_fraction_split_is_the_same_for_every_seed"),
 ("BERT known share counts [UNK] as special", "lamalib/models/saved.py",
  "special = (set(tokenizer.all_special_ids) - {unk}", "special = (set(tokenizer.all_special_ids)", T+"test_a_berts_unk_is_not_a_special_token"),
 ("text with no tokens counted as known", "lamalib/models/saved.py",
  "if ids else 0.0)", "if ids else 1.0)", T+"test_a_text_without_tokens_is_not_known"),
 ("blank lines flagged as unknown", "lamalib/experiments/cli.py",
  "                        if share == 0.0:", "                        if not share:", T+"test_blank_lines_are_not_flagged_as_unknown"),
 ("UTF-32 LE BOM read as UTF-16", "lamalib/data/textio.py",
  'BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),\n        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),\n        (codecs.BOM_UTF16_BE, "utf-16"))',
  'BOMS = ((codecs.BOM_UTF32_BE, "utf-32"),\n        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),\n        (codecs.BOM_UTF16_BE, "utf-16"), (codecs.BOM_UTF32_LE, "utf-32"))', T+"test_a_utf32_le_bom_is_read_as_utf32"),
 ("mixed-encoding message for other codecs", "lamalib/data/textio.py",
  'found = _utf8_line(raw) if codec == "utf-8" else None', "found = _utf8_line(raw)", T+"test_another_codecs_error_is_not_the_mixed_utf8_message"),
 ("'the 0 lines before it'", "lamalib/data/textio.py",
  'f"the {line - 1} lines before it are" if line > 2 else', 'f"the {line - 1} lines before it are" if line > 0 else', T+"test_a_first_line_that_is_not_utf8_says_which_line_is"),
 ("UTF-8 line search stopping early", "lamalib/data/textio.py",
  "            except UnicodeDecodeError:\n                continue\n    return None", "            except UnicodeDecodeError:\n                return None\n    return None", T+"test_the_utf8_line_search_goes_past_a_bad_line"),
 ("a shard the index names may be missing", "lamalib/models/hf_copies.py",
  "        if not path.is_file():\n            raise EncoderFolderError(f\"{path}: missing (its index", "        if False:\n            raise EncoderFolderError(f\"{path}: missing (its index", T+"test_a_shard_its_index_names_must_be_there"),
 ("tokenizer's smaller limit ignored", "lamalib/models/hf_encoder.py",
  "return min(positions, limit) if limit and limit < 10**6 else positions", "return positions", T+"test_the_tokenizers_smaller_limit_is_kept"),
]
if __name__ == "__main__":
    raise SystemExit(1 if run(M, sys.argv[1:]) else 0)
