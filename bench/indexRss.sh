#!/bin/bash
# Peak RSS and wall time of `docs-rag index` into a new store, N runs (issue 15 figures in BENCHMARKS.md).
# usage: bash bench/indexRss.sh <label> <cli.js> <folder> <runs>  -> one line per run: label wall peakMB passages
label=$1; cli=$2; folder=$3; runs=$4
for i in $(seq 1 $runs); do
  store=${TMPDIR:-/tmp}/indexrss-store-$$
  rm -rf $store ${TMPDIR:-/tmp}/indexrss-$$.json ${TMPDIR:-/tmp}/indexrss-$$.time
  /usr/bin/time -v node $cli index $folder --store $store --json > ${TMPDIR:-/tmp}/indexrss-$$.json 2> ${TMPDIR:-/tmp}/indexrss-$$.time
  wall=$(grep "Elapsed" ${TMPDIR:-/tmp}/indexrss-$$.time | awk '{print $NF}')
  peak=$(grep "Maximum resident" ${TMPDIR:-/tmp}/indexrss-$$.time | awk '{print int($NF/1024)}')
  chunks=$(grep -o '"chunks":[0-9]*' ${TMPDIR:-/tmp}/indexrss-$$.json)
  echo "$label run$i wall=$wall peakMB=$peak $chunks"
  rm -rf $store ${TMPDIR:-/tmp}/indexrss-$$.json ${TMPDIR:-/tmp}/indexrss-$$.time
done
