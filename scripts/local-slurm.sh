#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for the Slurm launcher's tests (issue #7) and
# for trying `pstrain train --launcher slurm` without a cluster.
#
#   scripts/local-slurm.sh start    start munged, slurmctld and slurmd (idempotent); wait until the
#                                   node is idle; print the SLURM_CONF to export
#   scripts/local-slurm.sh stop     cancel its jobs, stop the three daemons (idempotent)
#   scripts/local-slurm.sh status   exit 0 when the cluster answers and its node is up
#   scripts/local-slurm.sh env      print `export SLURM_CONF=...`
#
# Everything lives under PSTRAIN_SLURM_DIR (default ${TMPDIR:-/tmp}/pstrain-slurm): the munge key,
# socket, PID and log files, slurm.conf, the controller's state and slurmd's spool directories, and
# the daemons' logs (log/). Nothing is written to /etc, /run or /var. Clients find the cluster
# through SLURM_CONF=$PSTRAIN_SLURM_DIR/slurm.conf, which also names the munge socket.
#
# Configuration: one node, "pstrain-node", address 127.0.0.1, CPUs = `nproc`; one partition,
# "pstrain" (default); ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no cgroups, no
# accounting (slurmdbd) and no job-completion log. Ports 16817 (slurmctld) and 16818 (slurmd), or
# PSTRAIN_SLURM_CTLD_PORT / PSTRAIN_SLURM_SLURMD_PORT. Daemons run as the calling user (root in CI).
#
# Needs Debian's slurm-wlm and munge (scripts/bootstrap.sh installs them).
set -euo pipefail

DIR=${PSTRAIN_SLURM_DIR:-${TMPDIR:-/tmp}/pstrain-slurm}
CTLD_PORT=${PSTRAIN_SLURM_CTLD_PORT:-16817}
SLURMD_PORT=${PSTRAIN_SLURM_SLURMD_PORT:-16818}
NODE=pstrain-node
PARTITION=pstrain
CONF=$DIR/slurm.conf
MUNGE_SOCKET=$DIR/munge/munge.socket
START_TIMEOUT=${PSTRAIN_SLURM_START_TIMEOUT:-60}

die() {
  echo "local-slurm: $*" >&2
  exit 1
}

# PID from a PID file if that process is alive.
live_pid() {
  local file=$1 pid
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

node_state() {
  SLURM_CONF=$CONF timeout 10 sinfo -h -N -n "$NODE" -o %t 2>/dev/null | head -n1
}

cluster_up() {
  live_pid "$DIR/munged.pid" >/dev/null && live_pid "$DIR/slurmctld.pid" >/dev/null && live_pid "$DIR/slurmd.pid" >/dev/null || return 1
  local state
  state=$(node_state)
  [[ $state == idle* || $state == mix* || $state == alloc* ]]
}

write_config() {
  local cpus
  cpus=$(nproc)
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/munge"
  cat >"$CONF.tmp" <<EOF
# Written by scripts/local-slurm.sh: a single-node cluster for pstrain's tests.
ClusterName=pstrain
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
# Start queued array tasks as soon as a CPU frees up (default: up to 3 s later).
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$CONF.tmp" "$CONF"
}

start_munged() {
  if live_pid "$DIR/munged.pid" >/dev/null; then return; fi
  if [[ ! -s $DIR/munge/munge.key ]]; then
    umask 077
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null
    else
      dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    fi
    umask 022
  fi
  chmod 700 "$DIR/munge"
  chmod 600 "$DIR/munge/munge.key"
  rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
  munged --force --key-file="$DIR/munge/munge.key" --socket="$MUNGE_SOCKET" --pid-file="$DIR/munged.pid" \
    --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munged.seed" ||
    die "munged did not start; see $DIR/log/munged.log"
  for _ in $(seq 50); do
    [[ -S $MUNGE_SOCKET ]] && live_pid "$DIR/munged.pid" >/dev/null && return
    sleep 0.1
  done
  die "munged did not create its socket $MUNGE_SOCKET; see $DIR/log/munged.log"
}

start() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null ||
    die "slurmctld, slurmd or munged not found: install Debian's slurm-wlm and munge (scripts/bootstrap.sh)"
  mkdir -p "$DIR"
  if cluster_up; then
    echo "local-slurm: already running (SLURM_CONF=$CONF, logs in $DIR/log)"
    return
  fi
  write_config
  start_munged
  if ! live_pid "$DIR/slurmctld.pid" >/dev/null; then
    # -c: start from a clean state (no jobs of an earlier cluster of this directory).
    slurmctld -c -f "$CONF" || die "slurmctld did not start; see $DIR/log/slurmctld.log"
  fi
  if ! live_pid "$DIR/slurmd.pid" >/dev/null; then
    slurmd -c -f "$CONF" -N "$NODE" || die "slurmd did not start; see $DIR/log/slurmd.log"
  fi
  local waited=0 state=""
  while ((waited < START_TIMEOUT * 5)); do
    state=$(node_state || true)
    if [[ $state == idle* || $state == mix* || $state == alloc* ]]; then
      echo "local-slurm: node $NODE is $state (partition $PARTITION, $(nproc) CPUs)"
      echo "local-slurm: export SLURM_CONF=$CONF   # logs in $DIR/log"
      return
    fi
    if [[ $state == down* || $state == drain* ]]; then
      SLURM_CONF=$CONF scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  echo "local-slurm: node $NODE not idle after ${START_TIMEOUT}s (state: '${state:-no answer}')" >&2
  for log in munged slurmctld slurmd; do
    echo "--- $DIR/log/$log.log (tail)" >&2
    tail -n 15 "$DIR/log/$log.log" >&2 2>/dev/null || true
  done
  exit 1
}

# SIGTERM to the named daemons (by their PID files), then wait up to 10 s, then SIGKILL.
stop_daemons() {
  local name pid pids=()
  for name in "$@"; do
    if pid=$(live_pid "$DIR/$name.pid"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for _ in $(seq 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null; done
  for name in "$@"; do rm -f "$DIR/$name.pid"; done
}

stop() {
  if live_pid "$DIR/slurmctld.pid" >/dev/null; then
    # Cancel what is still queued or running, so that no job step outlives the cluster.
    SLURM_CONF=$CONF timeout 10 scancel --partition="$PARTITION" >/dev/null 2>&1 || true
    for _ in $(seq 50); do
      [[ -z $(SLURM_CONF=$CONF timeout 10 squeue -h -p "$PARTITION" -o %i 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
  stop_daemons slurmd slurmctld
  stop_daemons munged
  echo "local-slurm: stopped (state and logs kept in $DIR)"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status)
    if cluster_up; then
      echo "local-slurm: running, node $NODE $(node_state) (SLURM_CONF=$CONF)"
    else
      echo "local-slurm: not running (or node not up) in $DIR"
      exit 1
    fi
    ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
