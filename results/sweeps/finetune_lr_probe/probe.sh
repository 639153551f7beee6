#!/bin/bash
# lr probe: MiniLM fine-tuned at the old default (1e-3) and the new one (5e-5), 2 epochs, seed 0
source /work/main/.venv/bin/activate
export PYTHONPATH=/work/wt/tool OMP_NUM_THREADS=1 LAMALIB_PROFILE=quick LAMALIB_PROGRESS=0 HF_HUB_OFFLINE=1
for d in vsfc books; do
  for lr in 5e-5 1e-3; do
    start=$(date +%s)
    python -m lamalib.experiments run --model bert --set pretrained_name=all-MiniLM-L6-v2 \
      --train ${d}_train.tsv --test ${d}_test.tsv --set header=false --set max_len=64 \
      --set epochs=2 --set lr=$lr --name ${d}-lr$lr --results R 2>&1 | grep -E "test accuracy|error"
    echo "$d lr=$lr $(( $(date +%s) - start )) s"
  done
done
