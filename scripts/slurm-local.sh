#!/usr/bin/env bash
# slurm-local.sh: a single-node Slurm cluster on this machine, from Debian's packages,
# for fragprof's tests and benchmarks of `freq --engine slurm` (docs/scale.md).
#
#   scripts/slurm-local.sh up     install slurmctld, slurmd, slurm-client and munge when
#                                 missing, write slurm.conf for this host with its CPUs
#                                 and memory (from `slurmd -C`), start munged, slurmctld
#                                 and slurmd, and wait until the node is idle
#                                 (failing, with the end of its log, when one of them
#                                 dies, e.g. on a port another cluster holds)
#   scripts/slurm-local.sh down   stop the daemons this script started, munged included
#   scripts/slurm-local.sh env    print the line a shell needs to reach the cluster:
#                                 eval "$(scripts/slurm-local.sh env)"; sinfo; squeue
#   scripts/slurm-local.sh status exit 0 when both daemons run and answer
#
# Idempotent: `up` on a running cluster only checks it, `down` on a stopped one does
# nothing. Runs as root, or as a user with sudo (the daemons run as root; no systemd is
# needed, so it works in containers and VMs). Everything — slurm.conf, state, spool,
# logs, pid files — lives in $FRAGPROF_SLURM_DIR (default /var/tmp/fragprof-slurm);
# the ports are $FRAGPROF_SLURM_PORT (slurmctld, default 6817) and that port + 1
# (slurmd). Plugins are the ones that work without cgroups: proctrack/linuxproc,
# task/none, select/cons_tres over cores, no accounting database (finished jobs are
# kept in slurmctld for MinJobAge and logged by jobcomp/filetxt). FRAGPROF_SLURM_CPUS=N
# declares N CPUs instead of the machine's (tasks then time-share the cores).
set -euo pipefail

dir=${FRAGPROF_SLURM_DIR:-/var/tmp/fragprof-slurm}
port=${FRAGPROF_SLURM_PORT:-6817}
conf=$dir/slurm.conf

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

say() { echo "slurm-local: $*" >&2; }
die() { say "$*"; exit 1; }

# alive PIDFILE: the process named in PIDFILE runs.
alive() { [ -s "$1" ] && $sudo kill -0 "$(cat "$1")" 2>/dev/null; }

install() {
  local missing=()
  command -v slurmctld >/dev/null 2>&1 || missing+=(slurmctld)
  command -v slurmd >/dev/null 2>&1 || missing+=(slurmd)
  command -v sbatch >/dev/null 2>&1 || missing+=(slurm-client)
  command -v munged >/dev/null 2>&1 || missing+=(munge)
  [ ${#missing[@]} -eq 0 ] && return
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # The packages' own services are not wanted (and there may be no init to run them).
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

write_conf() {
  local host node mem
  host=$(hostname -s)
  # `slurmd -C` prints this node's real hardware: CPUs, sockets, cores, threads, memory.
  node=$(slurmd -C | sed -n 's/^NodeName=[^ ]* //p' | sed 's/ *UpTime=.*//')
  [ -n "$node" ] || die "slurmd -C printed no node line"
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
  local over=""
  if [ -n "${FRAGPROF_SLURM_CPUS:-}" ]; then
    # More CPUs than the machine has: tasks time-share the cores, as the local
    # engine's --jobs N does (bench/scale.sh compares the two).
    node="CPUs=$FRAGPROF_SLURM_CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$FRAGPROF_SLURM_CPUS ThreadsPerCore=1 RealMemory=$mem"
    over="SlurmdParameters=config_overrides"
  fi
  $sudo mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  $sudo tee "$conf.new" >/dev/null <<EOF
# Written by fragprof's scripts/slurm-local.sh: a single-node cluster on $host.
ClusterName=fragprof
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# A requeued (preempted) job waits for its revoked credential to expire before it
# can start again: 10 s here rather than 120.
AuthInfo=cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
# Schedule on every submission and completion at once: a round of array tasks should
# not wait for a periodic pass (the defaults delay batch jobs by up to 3 s).
SchedulerParameters=batch_sched_delay=0,sched_interval=2,default_queue_depth=10000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((mem / ${FRAGPROF_SLURM_CPUS:-$(nproc)} / 2))
$over
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=600
MaxArraySize=10001
MaxJobCount=100000
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # Rewritten on every `up`; a running cluster is restarted on a changed file (a
  # node's CPUs do not change by reconfiguration).
  if ! cmp -s "$conf.new" "$conf"; then
    if alive "$dir/slurmctld.pid" || alive "$dir/slurmd.pid"; then
      say "slurm.conf changed: restarting the daemons"
      stop "$dir/slurmd.pid" slurmd
      stop "$dir/slurmctld.pid" slurmctld
    fi
    $sudo mv "$conf.new" "$conf"
  else
    $sudo rm -f "$conf.new"
  fi
}

up() {
  install
  write_conf
  export SLURM_CONF=$conf
  if ! pgrep -x munged >/dev/null; then
    # Debian's munge package made the key; make one if it is missing.
    [ -f /etc/munge/munge.key ] || $sudo mungekey --create
    $sudo mkdir -p /run/munge
    $sudo chown munge:munge /run/munge 2>/dev/null || true
    # munged daemonizes: the pid is the one it writes itself, not its parent's.
    local mpid=/run/munge/munged.pid
    if id munge >/dev/null 2>&1; then
      $sudo runuser -u munge -- /usr/sbin/munged --pid-file="$mpid"
    else
      $sudo /usr/sbin/munged --force --pid-file="$mpid"
    fi
    $sudo cat "$mpid" | $sudo tee "$dir/munged.pid" >/dev/null
    alive "$dir/munged.pid" || die "munged did not start (see /var/log/munge/munged.log)"
  elif ! alive "$dir/munged.pid"; then
    # A munged this script did not start (or no longer names): not ours to stop.
    $sudo rm -f "$dir/munged.pid"
  fi
  if ! alive "$dir/slurmctld.pid"; then
    port_free "$port" slurmctld
    $sudo env SLURM_CONF="$conf" slurmctld -f "$conf"
  fi
  if ! alive "$dir/slurmd.pid"; then
    port_free $((port + 1)) slurmd
    $sudo env SLURM_CONF="$conf" slurmd -f "$conf"
  fi
  local host state
  host=$(hostname -s)
  for _ in $(seq 60); do
    # Our own daemons must run, and the controller that answers must be ours: on a
    # shared port another cluster would answer for a slurmctld that died.
    own slurmctld
    own slurmd
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    case $state in
      idle|mixed|allocated|completing)
        ours || die "the slurmctld answering on port $port is not this cluster's (its StateSaveLocation is not $dir/state): stop the other cluster, or set FRAGPROF_SLURM_PORT"
        say "up: node $host $state ($conf)"; return 0 ;;
      down*|drain*|fail*) $sudo env SLURM_CONF="$conf" scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  die "the node did not become idle (state '${state:-none}'); see $dir/log/slurmctld.log and $dir/log/slurmd.log"
}

# port_free PORT NAME: fail when another process listens on PORT, which NAME needs.
port_free() {
  local who
  who=$($sudo ss -Hltnp "sport = :$1" 2>/dev/null || true)
  [ -z "$who" ] || die "port $1, which $2 needs, is in use: $who; stop that process (another cluster: its 'slurm-local.sh down'), or choose other ports with FRAGPROF_SLURM_PORT"
}

# own NAME: fail, with the end of its log, when the daemon NAME this script started died.
own() {
  alive "$dir/$1.pid" && return 0
  sleep 0.5 # it may be writing its pid file still
  alive "$dir/$1.pid" && return 0
  say "$1 is not running; the end of $dir/log/$1.log:"
  $sudo tail -n 5 "$dir/log/$1.log" >&2 || true
  die "$1 died: fix the cause above, then '$0 up' again"
}

# ours: the controller that answers keeps its state in this cluster's directory.
ours() {
  scontrol show config 2>/dev/null | grep -q "^StateSaveLocation *= *$dir/state\$"
}

# stop PIDFILE NAME: end the process named in PIDFILE and wait for it.
stop() {
  alive "$1" || return 0
  local pid
  pid=$(cat "$1")
  $sudo kill "$pid"
  for _ in $(seq 50); do
    $sudo kill -0 "$pid" 2>/dev/null || { say "stopped $2"; return 0; }
    sleep 0.2
  done
  die "$2 (pid $pid) did not stop"
}

down() {
  if alive "$dir/slurmctld.pid"; then
    SLURM_CONF=$conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  stop "$dir/slurmd.pid" slurmd
  stop "$dir/slurmctld.pid" slurmctld
  stop "$dir/munged.pid" munged
  $sudo rm -f "$dir/munged.pid"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  env) echo "export SLURM_CONF=$conf" ;;
  status) alive "$dir/slurmctld.pid" && alive "$dir/slurmd.pid" && SLURM_CONF=$conf ours ;;
  *) echo "usage: $0 up|down|env|status" >&2; exit 2 ;;
esac
