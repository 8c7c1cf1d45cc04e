#!/usr/bin/env bash
# `mgedump batch` sharded on a real Slurm cluster: starts a one-node cluster on loopback
# (munged, slurmctld, slurmd from Debian's packages: `bash tools/setup.sh --slurm`), runs the
# batch as job arrays of several shapes and as the pods of a Kubernetes Indexed Job, and checks
# each against one unsharded run of the same manifest: artifacts and stamps byte for byte, no
# temporary file left, and the shards' reports covering every job exactly once.
#
#   tools/slurm_test.sh [MGEDUMP]        MGEDUMP: the binary to test (default build/mgedump)
#
# Exit 0: every check passed; 1: a check failed (the daemons' and tasks' logs are printed);
# 77: skipped, because Slurm or MUNGE is not installed or this is not root (slurmd starts jobs
# as their user, so it runs as root). Everything lives in one temporary directory; on any exit
# the jobs are cancelled, exactly the daemons this script started are stopped by PID, and the
# directory is removed (MGEDUMP_SLURM_KEEP=1 keeps it). Every wait is bounded, and a watchdog
# ends the script after MGEDUMP_SLURM_LIMIT seconds (default 600).
set -euo pipefail
cd "$(dirname "$0")/.."

mgedump=$(realpath "${1:-build/mgedump}")
limit=${MGEDUMP_SLURM_LIMIT:-600}

for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "slurm_test: skipped: $tool is not installed (bash tools/setup.sh --slurm)"
    exit 77
  fi
done
if [[ $(id -u) -ne 0 ]]; then
  echo "slurm_test: skipped: slurmd must run as root to start jobs"
  exit 77
fi
[[ -x "$mgedump" ]] || { echo "slurm_test: $mgedump is not an executable (build first)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/mgedump-slurm.XXXXXX)
# munged wants the directories on its socket's path searchable by every user.
chmod 755 "$tmp"
mkdir -p "$tmp"/{munge,state,spool,log,work,out,reports}
# The binary under test is copied, so that a rebuild while this runs cannot change it mid-array.
cp "$mgedump" "$tmp/work/mgedump"
mgedump=$tmp/work/mgedump

daemon_pids=()   # what this script started, stopped in reverse order
watchdog_pid=
failed=0
passed=0

stop_daemons() {
  local i pid
  for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do
    pid=${daemon_pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  daemon_pids=()
}

show_logs() {
  local f
  for f in "$tmp"/log/*; do
    [[ -s "$f" ]] || continue
    echo "---- ${f#"$tmp"/} (last 40 lines)"
    tail -n 40 "$f"
  done
}

cleanup() {
  local status=$?
  set +e
  trap - EXIT TERM INT
  if ((${#daemon_pids[@]})); then
    # Jobs first, while slurmctld can still cancel them; bounded.
    local jobs
    mapfile -t jobs < <(squeue -h -o %A 2>/dev/null | sort -u)
    ((${#jobs[@]})) && scancel --quiet --full "${jobs[@]}" 2>/dev/null
    for _ in $(seq 100); do [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break; sleep 0.1; done
  fi
  stop_daemons
  [[ -n "$watchdog_pid" ]] && kill "$watchdog_pid" 2>/dev/null && wait "$watchdog_pid" 2>/dev/null
  ((status != 0)) && show_logs
  if [[ "${MGEDUMP_SLURM_KEEP:-0}" == 1 ]]; then echo "slurm_test: kept $tmp"; else rm -rf "$tmp"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "slurm_test: interrupted" >&2; exit 143' TERM INT

# The watchdog polls, so nothing of it outlives the script by more than a second.
main_pid=$$
(
  while kill -0 "$main_pid" 2>/dev/null; do
    if ((SECONDS >= limit)); then
      echo "slurm_test: still running after ${limit}s; stopping" >&2
      kill -TERM "$main_pid"
      exit 0
    fi
    sleep 1
  done
) >/dev/null 2>>"$tmp/log/watchdog" &
watchdog_pid=$!

# Waits at most $2 seconds for command $1 (a string, run by bash) to succeed.
wait_for() {
  local what=$1 seconds=$2 start=$SECONDS
  until bash -c "$what" >/dev/null 2>&1; do
    ((SECONDS - start < seconds)) || { echo "slurm_test: timed out after ${seconds}s waiting for: $what" >&2; return 1; }
    sleep 0.2
  done
}

# ---- the cluster ------------------------------------------------------------------------------

host=$(hostname -s)
# Two free loopback ports, held open together so that they differ.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

mungekey --create --keyfile="$tmp/munge/munge.key"
munge_socket=$tmp/munge/munge.socket
munged -F --socket="$munge_socket" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munged.seed" >"$tmp/log/munged.out" 2>&1 &
daemon_pids+=($!)
wait_for "munge -S '$munge_socket' -n | unmunge -S '$munge_socket'" 20

: >"$tmp/plugstack.conf"
export SLURM_CONF=$tmp/slurm.conf
# The node is the README's small one, 8 CPUs and 16 GB (15.5 GB for jobs), whatever this machine
# has (config_overrides); memory is allotted (CR_CPU_Memory), so a script asking for more than
# the node has is refused as on a real cluster. The plugins need neither cgroups nor a database.
cat >"$SLURM_CONF" <<EOF
ClusterName=mgedumptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=100
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=8 RealMemory=15500 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -c -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
daemon_pids+=($!)
wait_for "scontrol ping | grep -q UP" 30
slurmd -D -N "$host" -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
daemon_pids+=($!)
wait_for "sinfo -h -o %T | grep -qx idle" 60
echo "slurm_test: cluster up on 127.0.0.1:$ctld_port (node $host, slurmd port $slurmd_port)"

# ---- the manifest and the single run ----------------------------------------------------------

# 64 jobs of small graph JSON models (some with two variants, some in subdirectories, some
# sharing constants), and 6 slow ones (long chains, about a second each) at job indices 1, 5, 9,
# ...: all in shard 1 of 4, so that its task can be cancelled while it runs.
python3 - "$tmp/work" <<'EOF'
import json, os, sys
root = sys.argv[1]
os.makedirs(os.path.join(root, "models"))
modes = ["ADD", "MUL", "SUB", "MAX", "MIN"]

def graph(ops, width, seed, shared):
    consts = [{"name": "c", "dtype": "Float32", "shape": [width],
               "values": [float(seed * 1000 + i) / 7 for i in range(width)]},
              # the same values in many models: one blob for the batch's cache
              {"name": "s", "dtype": "Float32", "shape": [width],
               "values": [float(i if shared else seed + i) for i in range(width)]}]
    operators, prev = [], "x"
    for i in range(ops):
        operators.append({"op": "Elemwise", "name": f"e{i}", "inputs": [prev, "cs"[i % 2]],
                          "params": {"mode": modes[(i + seed) % len(modes)]}})
        prev = f"e{i}"
    return {"format": "mgedump-graph", "version": 1,
            "inputs": [{"name": "x", "dtype": "Float32", "shape": [1, width]}],
            "constants": consts, "operators": operators, "outputs": [prev]}

lines = []
for j in range(64):
    slow = j % 4 == 1 and j < 24
    name = f"slow{j:02d}" if slow else f"m{j:02d}"
    g = graph(40000, 16, j, True) if slow else graph(2 + j % 29, 4 + 4 * (j % 7), j, j % 3 == 0)
    with open(os.path.join(root, "models", name + ".json"), "w") as f:
        json.dump(g, f)
    out = f"group{j % 5}/{name}"
    if j % 3 == 0:
        lines.append({"input": f"models/{name}.json", "output": out,
                      "variants": [{"suffix": ".mge"}, {"suffix": ".fbs.mge", "dump_format": "FBS"}]})
    else:
        lines.append({"input": f"models/{name}.json", "output": out + ".mge"})
with open(os.path.join(root, "manifest.jsonl"), "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
EOF
export MGEDUMP=$mgedump MANIFEST=$tmp/work/manifest.jsonl

# Whatever scheduler this script itself runs under, the reference run is no array task.
unsharded() {
  env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_MAX -u SLURM_ARRAY_TASK_STEP \
    -u SLURM_ARRAY_TASK_COUNT -u SLURM_CPUS_PER_TASK -u SLURM_CPUS_ON_NODE -u JOB_COMPLETION_INDEX "$@"
}
start=$SECONDS
unsharded "$mgedump" batch "$MANIFEST" -o "$tmp/out/single" --threads 2 --incremental -q \
  --report "$tmp/reports/single.json"
echo "slurm_test: single run of $(wc -l <"$MANIFEST") jobs: $((SECONDS - start)) s"

# One array task, as the README's sbatch script runs it: `--threads "$SLURM_CPUS_PER_TASK"`
# (empty: no --cpus-per-task is given), one report per task. Arguments: OUT_DIR REPORT_DIR FLAGS...
cat >"$tmp/work/task.sh" <<'EOF'
#!/bin/bash
out=$1 reports=$2
shift 2
exec "$MGEDUMP" batch "$MANIFEST" -o "$out" --threads "$SLURM_CPUS_PER_TASK" --incremental -q \
  --report "$reports/report.$SLURM_ARRAY_TASK_ID.json" "$@"
EOF
chmod +x "$tmp/work/task.sh"

# ---- checks -----------------------------------------------------------------------------------

# Submits task.sh as array $1 for shape $2 (its OUT_DIR and report dir) with flags $3...; prints
# the job ID.
submit() {
  local array=$1 shape=$2
  shift 2
  mkdir -p "$tmp/reports/$shape"
  sbatch --parsable --array="$array" --job-name="$shape" --chdir="$tmp/work" \
    --output="$tmp/log/task-%x-%a.log" "$tmp/work/task.sh" "$tmp/out/$shape" "$tmp/reports/$shape" "$@"
}

# Waits (at most 180 s) until no task of job $1 is pending or running.
wait_job() {
  local id=$1 start=$SECONDS queued
  while :; do
    if queued=$(squeue -h -j "$id" -o %i 2>/dev/null) && [[ -z "$queued" ]]; then return 0; fi
    ((SECONDS - start < 180)) || { echo "job $id still queued or running after 180 s"; return 1; }
    sleep 0.2
  done
}

# "TASK STATE EXIT_CODE" of each task of job $1, one a line, e.g. "1 CANCELLED 0:15".
task_states() {
  scontrol -o show job "$1" | sed -E 's/.*ArrayTaskId=([^ ]+).*JobState=([^ ]+).*ExitCode=([^ ]+).*/\1 \2 \3/' |
    sort -n
}

# Job $1's tasks must have ended as pattern $2 (task_states' lines joined by commas).
expect_tasks() {
  local id=$1 expected=$2 got
  got=$(task_states "$id" | paste -sd, -)
  # shellcheck disable=SC2053  # $expected is a pattern
  [[ "$got" == $expected ]] || { echo "job $id: tasks ended as '$got', expected '$expected'"; return 1; }
}

# Runs array $1 of shape $2 with flags $3... to its end; every task must exit 0.
run_array() {
  local array=$1 shape=$2 id ids
  shift 2
  id=$(submit "$array" "$shape" "$@") || return 1
  wait_job "$id" || return 1
  ids=$(task_states "$id" | awk '{print $1}')
  expect_tasks "$id" "$(for i in $ids; do echo "$i COMPLETED 0:0"; done | paste -sd, -)"
}

# The shards' union against the single run: every artifact and stamp byte for byte, nothing
# else (a temporary file, an artifact the single run does not have), and the reports in the
# report dir (default reports/SHAPE) covering every job exactly once with the single run's bytes
# and digests. Arguments: shape, shard count, shard-by, report dir.
check_union() {
  local shape=$1 count=$2 by=$3 reports=${4:-$tmp/reports/$1} temps
  if ! diff -rq --exclude='report.*.json' "$tmp/out/single" "$tmp/out/$shape" >"$tmp/log/diff-$shape"; then
    echo "$shape: the shards' artifacts differ from the single run's:"
    head -n 20 "$tmp/log/diff-$shape"
    return 1
  fi
  temps=$(find "$tmp/out/$shape" -name '.*.tmp-*')
  [[ -z "$temps" ]] || { echo "$shape: temporary files left: $temps"; return 1; }
  python3 - "$tmp/reports/single.json" "$reports" "$count" "$by" "$tmp/work" <<'EOF'
import glob, json, os, sys
single_path, report_dir, count, by, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def key(a): return (a["job"], a["path"])
# An input is named as the manifest's path was spelled (relative in the README's script).
def fields(a):
    f = {k: v for k, v in a.items() if k not in ("seconds", "status")}
    f["input"] = os.path.relpath(os.path.join(work, f["input"]), work)
    return f
single = {key(a): fields(a) for a in json.load(open(single_path))["artifacts"]}
problems, seen, shards = [], {}, set()
reports = sorted(glob.glob(report_dir + "/report.*.json"))
for path in reports:
    r = json.load(open(path))
    s = r["shard"]
    if s["count"] != count or s["by"] != by:
        problems.append(f"{path}: shard {s}, expected count {count} by {by}")
    if s["index"] in shards:
        problems.append(f"{path}: shard {s['index']} has two reports")
    shards.add(s["index"])
    for a in r["artifacts"]:
        if a["status"] not in ("written", "skipped"):
            problems.append(f"{path}: {a['path']}: {a['status']} {a.get('error', '')}")
        if key(a) in seen:
            problems.append(f"{a['path']} (job {a['job']}) is in {seen[key(a)]} and {path}")
        seen[key(a)] = path
        if key(a) not in single:
            problems.append(f"{path}: {a['path']} (job {a['job']}) is not an artifact of the single run")
        elif fields(a) != single[key(a)]:
            diff = sorted(k for k in set(fields(a)) | set(single[key(a)]) if fields(a).get(k) != single[key(a)].get(k))
            problems.append(f"{path}: {a['path']}: {', '.join(diff)} differ from the single run's report entry")
        if by == "index" and a["job"] % count != s["index"]:
            problems.append(f"{path}: job {a['job']} is not in shard {s['index']} of {count}")
if shards != set(range(count)):
    problems.append(f"reports of shards {sorted(shards)}, expected 0..{count - 1}")
for k in sorted(set(single) - set(seen)):
    problems.append(f"{k[1]} (job {k[0]}) is in no shard's report")
for p in problems[:20]:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

check() {
  local name=$1 start=$SECONDS
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok   $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    echo "FAIL $name ($((SECONDS - start)) s)"
  fi
}

contiguous_array() {
  run_array 0-3 contiguous && check_union contiguous 4 index
}

# --array=0-6:2: COUNT=4, STEP=2; task 4 is shard 2, task 6 shard 3.
stepped_array() {
  run_array 0-6:2 stepped && check_union stepped 4 index
}

# A failed index re-submitted alone: without --shard-count the one-task array is refused (it
# would run the whole batch); with it, task 1 runs shard 1 of 4 and completes the union.
resubmitted_index() {
  local id log
  run_array 0,2,3 resubmit --shard-count 4 || return 1
  [[ ! -e "$tmp/reports/resubmit/report.1.json" ]] || { echo "shard 1 ran before it was re-submitted"; return 1; }
  id=$(submit 1 ambiguous) || return 1
  wait_job "$id" && expect_tasks "$id" "1 FAILED 2:0" || return 1
  log=$tmp/log/task-ambiguous-1.log
  grep -q -- "--shard-count" "$log" || { echo "the refusal does not say to pass --shard-count:"; cat "$log"; return 1; }
  [[ -z "$(find "$tmp/out/ambiguous" -type f 2>/dev/null)" ]] || { echo "the refused task wrote files"; return 1; }
  run_array 1 resubmit --shard-count 4 && check_union resubmit 4 index
}

# Task 1 (the slow jobs) is cancelled while it runs, after its first artifact is written and
# before its last; the array re-run with --incremental writes only what is missing.
cancelled_task() {
  local id first all_written
  first=$(python3 -c 'import json, sys; print(min((a["job"], a["path"]) for a in json.load(open(sys.argv[1]))["artifacts"] if a["job"] % 4 == 1)[1])' \
    "$tmp/reports/single.json")
  id=$(submit 0-3 cancel --shard-count 4) || return 1
  wait_for "test -e '$tmp/out/cancel/$first'" 120 || return 1
  scancel "${id}_1"
  wait_job "$id" || return 1
  expect_tasks "$id" "0 COMPLETED 0:0,1 CANCELLED 0:*,2 COMPLETED 0:0,3 COMPLETED 0:0" || return 1
  all_written=$(python3 -c 'import json, os, sys
single = json.load(open(sys.argv[1]))["artifacts"]
print(all(os.path.exists(os.path.join(sys.argv[2], a["path"])) for a in single if a["job"] % 4 == 1))' \
    "$tmp/reports/single.json" "$tmp/out/cancel")
  [[ "$all_written" == False ]] || { echo "task 1 finished before it was cancelled: not a mid-run cancel"; return 1; }
  [[ ! -e "$tmp/reports/cancel/report.1.json" ]] || { echo "the cancelled task wrote its report"; return 1; }
  echo "  after the cancel: $(find "$tmp/out/cancel" -name '.*.tmp-*' | wc -l) temporary file(s) in OUT_DIR"
  run_array 0-3 cancel --shard-count 4 && check_union cancel 4 index || return 1
  # Only the cancelled shard had anything left to write.
  python3 - "$tmp/reports/cancel" <<'EOF'
import json, sys
t = {i: json.load(open(f"{sys.argv[1]}/report.{i}.json"))["totals"] for i in range(4)}
bad = [i for i in (0, 2, 3) if t[i]["written"] != 0] + ([1] if not (t[1]["written"] and t[1]["skipped"]) else [])
for i in bad: print(f"re-run shard {i}: {t[i]['written']} written, {t[i]['skipped']} up to date")
sys.exit(1 if bad else 0)
EOF
}

# The pods of an Indexed Job with completions: 5: JOB_COMPLETION_INDEX, the count as
# --shard-count, all at once into one directory; sharded by output name this time.
kubernetes_indexed_job() {
  local k pids=() status=0
  mkdir -p "$tmp/reports/kubernetes"
  for k in 0 1 2 3 4; do
    unsharded env JOB_COMPLETION_INDEX=$k "$mgedump" batch "$MANIFEST" -o "$tmp/out/kubernetes" --shard-count 5 \
      --shard-by name --threads 1 --incremental -q --report "$tmp/reports/kubernetes/report.$k.json" \
      >"$tmp/log/pod-$k.log" 2>&1 &
    pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || status=1; done
  ((status == 0)) || { echo "a pod failed"; cat "$tmp"/log/pod-*.log; return 1; }
  check_union kubernetes 5 name
}

# The README's sbatch script as written, but for its output directory: 16 tasks of 4 CPUs and
# 6G on the 8-CPU, 16 GB node, two at a time, each on SLURM_CPUS_PER_TASK threads.
readme_script() {
  local id threads
  mkdir -p "$tmp/work/build"
  ln -sf "$mgedump" "$tmp/work/build/mgedump"
  cp "$MANIFEST" "$tmp/work/jobs.jsonl"
  python3 - README.md "$tmp/out/readme" >"$tmp/work/export.sh" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
block = re.compile(r"```sh\n(.*?)```", re.S).search(text, text.index("Slurm: `sbatch export.sh`"))
print(block.group(1).replace("/shared/export", sys.argv[2]), end="")
EOF
  grep -q -- "--shard-count 16" "$tmp/work/export.sh" || { echo "no sbatch script in README.md"; return 1; }
  id=$(cd "$tmp/work" && sbatch --parsable export.sh) || return 1
  wait_job "$id" || return 1
  expect_tasks "$id" "$(for i in $(seq 0 15); do echo "$i COMPLETED 0:0"; done | paste -sd, -)" || return 1
  threads=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"]["threads"])' \
    "$tmp/out/readme/report.0.json")
  [[ "$threads" == 4 ]] || { echo "a task ran on $threads threads, not SLURM_CPUS_PER_TASK=4"; return 1; }
  check_union readme 16 index "$tmp/out/readme"
}

check "the README's sbatch script, on a node of 8 CPUs and 16 GB" readme_script
check "contiguous array --array=0-3, shard from the environment" contiguous_array
check "stepped array --array=0-6:2, shard from the environment" stepped_array
check "index 1 re-submitted alone (--array=1 --shard-count 4)" resubmitted_index
check "task 1 cancelled mid-run (scancel), array re-run with --incremental" cancelled_task
check "Kubernetes Indexed Job (JOB_COMPLETION_INDEX, --shard-count 5)" kubernetes_indexed_job

echo "slurm_test: $passed passed, $failed failed ($SECONDS s)"
((failed == 0))
