#!/bin/bash
# The lr probe: all-MiniLM-L6-v2 fine-tuned at 5e-5 and at 1e-3, seed 0, two epochs.
# DATA: a folder with the public MTL-16 files (books.task.{train,test}.xz) and
# UIT-VSFC's official release ({train,test}/{sents,sentiments}.txt).
set -e
python - "$DATA" <<'PY'
import lzma, random, sys
D = sys.argv[1]
tr = lzma.open(f"{D}/mtl16/books.task.train.xz", "rt", encoding="utf-8").read().splitlines()
te = lzma.open(f"{D}/mtl16/books.task.test.xz", "rt", encoding="utf-8").read().splitlines()
random.Random(0).shuffle(tr)
open("books_train.tsv", "w").write("\n".join(tr[:1000]) + "\n")
open("books_test.tsv", "w").write("\n".join(te[:400]) + "\n")
def load(split):
    s = open(f"{D}/uit-vsfc/{split}/sents.txt", encoding="utf-8").read().splitlines()
    y = open(f"{D}/uit-vsfc/{split}/sentiments.txt").read().split()
    return list(zip(y, s))
tr, te = load("train"), load("test")
random.Random(0).shuffle(tr)
random.Random(0).shuffle(te)
open("vsfc_train.tsv", "w").write("".join(f"{a}\t{b}\n" for a, b in tr[:1000]))
open("vsfc_test.tsv", "w").write("".join(f"{a}\t{b}\n" for a, b in te[:500]))
PY
export OMP_NUM_THREADS=1 LAMALIB_PROFILE=quick LAMALIB_PROGRESS=0 HF_HUB_OFFLINE=1
for d in vsfc books; do
  for lr in 5e-5 1e-3; do
    python -m lamalib.experiments run --model bert --set pretrained_name=all-MiniLM-L6-v2 \
      --train ${d}_train.tsv --test ${d}_test.tsv --set header=false --set max_len=64 \
      --set epochs=2 --set lr=$lr --name ${d}-lr$lr --results R
  done
done
