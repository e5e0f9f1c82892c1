#!/bin/bash
# nvdla-verif regress --on lsf: one shard of the run in {OUT}
index=${LSB_JOBINDEX:?not a task of a job array}
shard={OUT}/shards/$(printf %02d "$index")
echo "nvdla-verif: shard $index on $(hostname) at $(date -u +%FT%TZ)"
exec {COMMAND} regress --resume --out "$shard" -j 2 --shrink 40
