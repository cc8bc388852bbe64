#!/usr/bin/env bash
# Two Ray rollout actors, one device each, in one placement group.
set -euo pipefail
python -m llm_train.rollout
