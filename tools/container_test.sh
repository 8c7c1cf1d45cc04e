#!/usr/bin/env bash
# The Dockerfile's steps, run where no container engine can: every stage in its own
# fresh Debian 12 root (debootstrap --variant=minbase bookworm, entered with chroot),
# its FROM, WORKDIR, COPY (from the build context or an earlier stage), RUN, ENV,
# ENTRYPOINT and CMD read from the Dockerfile itself, so what is tested is what
# `docker build` would run. Then, in the final stage as the image would run them:
# its entrypoint with its CMD, and the README's Kubernetes Indexed Job (every pod's
# shard of a batch, their union byte for byte a single run's).
#
#   tools/container_test.sh [WORK_DIR]     (as root; downloads Debian packages from
#                                           deb.debian.org; about 30 minutes on two cores)
# WORK_DIR keeps the debootstrapped base (bookworm-minbase.tar) for the next run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-/tmp/mgedump-container-test}" && cd "${1:-/tmp/mgedump-container-test}" && pwd)
mirror=http://deb.debian.org/debian
[[ $(id -u) -eq 0 ]] || { echo "container_test: needs root (debootstrap, chroot)"; exit 77; }
command -v debootstrap >/dev/null || { echo "container_test: apt-get install debootstrap"; exit 77; }

base=$work/bookworm-minbase.tar
if [[ ! -f "$base" ]]; then
  rm -rf "$work/base"
  debootstrap --variant=minbase bookworm "$work/base" "$mirror"
  tar -C "$work/base" -cf "$base" .
  rm -rf "$work/base"
fi

# The build context: the repository's tracked and new files (.dockerignore's
# exclusions are all ignored by git as well).
context=$work/context
rm -rf "$context" && mkdir -p "$context"
git -C "$root" ls-files -z --cached --others --exclude-standard |
  tar -C "$root" --null --ignore-failed-read -T - -cf - | tar -C "$context" -xf -

mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT

# A fresh root for stage $1 (in $r), with /proc, /dev and name resolution.
new_root() {
  r=$work/stage-$1
  if [[ -d "$r" ]]; then
    umount -l "$r/proc" "$r/dev" 2>/dev/null || true
    rm -rf "$r"
  fi
  mkdir -p "$r" && tar -C "$r" -xf "$base"
  mount -t proc proc "$r/proc" && mounted+=("$r/proc")
  mount --bind /dev "$r/dev" && mounted+=("$r/dev")
  cp /etc/resolv.conf "$r/etc/resolv.conf"
}

# Runs a shell command in root $1, directory $2, with the stage's ENV lines ($3).
in_root() {
  chroot "$1" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive $3 /bin/sh -c "cd '$2' && $4"
}

# The Dockerfile's instructions, continuation lines joined, comments dropped.
mapfile -t instructions < <(sed -e 's/^[[:space:]]*#.*$//' "$root/Dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
  grep -v '^[[:space:]]*$')

declare -A stage_root
stage=-1 cwd=/ env="" entrypoint="" cmd=""
for line in "${instructions[@]}"; do
  keyword=${line%% *} rest=${line#* }
  echo "container_test: [stage $stage] $keyword ${rest:0:100}"
  case "$keyword" in
    FROM)
      stage=$((stage + 1)) cwd=/ env="" entrypoint="" cmd=""
      new_root "$stage"
      stage_root[$stage]=$r
      [[ "$rest" =~ [[:space:]]AS[[:space:]]+([a-z0-9_-]+) ]] && stage_root[${BASH_REMATCH[1]}]=$r
      ;;
    WORKDIR) cwd=$rest; mkdir -p "${stage_root[$stage]}$cwd" ;;
    ENV) env="$env ${rest/ /=}" ;;
    COPY)
      from=$context
      if [[ "$rest" =~ ^--from=([^ ]+)\ (.*)$ ]]; then from=${stage_root[${BASH_REMATCH[1]}]}; rest=${BASH_REMATCH[2]}; fi
      read -r -a args <<<"$rest"
      dest=${args[-1]}
      [[ "$dest" == /* ]] || dest=$cwd/$dest
      dest=${stage_root[$stage]}$dest
      for src in "${args[@]:0:${#args[@]}-1}"; do
        # shellcheck disable=SC2086  # the source may be a glob, as Docker allows
        for s in $(cd "$from" && ls -d ${src#/}); do
          if [[ "$s" == . ]]; then
            mkdir -p "$dest" && cp -a "$from/." "$dest/"
          elif [[ "$dest" == */ ]]; then
            mkdir -p "$dest" && cp -a "$from/$s" "$dest"
          else
            mkdir -p "$(dirname "$dest")" && cp -a "$from/$s" "$dest"
          fi
        done
      done
      ;;
    RUN)
      start=$SECONDS
      in_root "${stage_root[$stage]}" "$cwd" "$env" "$rest" >"$work/stage-$stage.log" 2>&1 ||
        { tail -n 40 "$work/stage-$stage.log"; echo "container_test: RUN failed (log: $work/stage-$stage.log)"; exit 1; }
      echo "container_test:   done in $((SECONDS - start)) s"
      ;;
    ENTRYPOINT) entrypoint=$rest ;;
    CMD) cmd=$rest ;;
    *) echo "container_test: the Dockerfile uses $keyword, which this script does not run"; exit 1 ;;
  esac
done

image=${stage_root[$stage]}
# The image's command line: ENTRYPOINT and CMD, both exec (JSON) form.
exec_form() { python3 -c 'import json, shlex, sys; print(" ".join(shlex.quote(a) for a in json.loads(sys.argv[1] or "[]")))' "$1"; }
echo "container_test: image root $image, $(du -sh --exclude=proc --exclude=dev "$image" | cut -f1)"
in_root "$image" "$cwd" "$env" "$(exec_form "$entrypoint") $(exec_form "$cmd")" | tail -n 3
in_root "$image" "$cwd" "$env" "dpkg-query -W mgedump && ! dpkg-query -W 'libtbb-dev' 2>/dev/null"

# The README's Kubernetes Indexed Job: the command of its pod spec, once per pod.
mkdir -p "$image/data/models"
cp "$root"/examples/*.json "$image/data/models/" && cp -r "$root/examples/weights" "$image/data/models/" 2>/dev/null || true
# 32 jobs over the example models, so that each of the 16 pods has some.
models=()
for f in "$image"/data/models/*.json; do models+=("$(basename "$f")"); done
for i in $(seq 0 31); do
  echo "{\"input\": \"models/${models[i % ${#models[@]}]}\", \"output\": \"m$i.mge\"}"
done >"$image/data/jobs.jsonl"
command=$(python3 - "$root/README.md" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
block = text[text.index("kind: Job"):]
args = re.search(r"args:\n\s+- (.*?)\n\s+resources:", block, re.S).group(1)
print(" ".join(args.split()))
EOF
)
grep -q -- "--shard-count 16" <<<"$command" || { echo "container_test: no Indexed Job command in README.md"; exit 1; }
command=${command//--threads 8/--threads 2}
command=${command//--memory-budget 12G/--memory-budget 256M}
echo "container_test: pods run: $command"
for k in $(seq 0 15); do
  in_root "$image" /data "$env JOB_COMPLETION_INDEX=$k" "$command -q" || { echo "container_test: pod $k failed"; exit 1; }
done
in_root "$image" /data "$env" "mgedump batch /data/jobs.jsonl -o /data/single --incremental -q"
diff -r --exclude='report*.json' "$image/data/single" "$image/data/export" ||
  { echo "container_test: the pods' artifacts differ from a single run's"; exit 1; }
echo "container_test: ok: $(ls "$image/data/export"/*.mge | wc -l) artifacts from 16 pods, the same as one run"
