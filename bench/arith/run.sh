#!/usr/bin/env bash
# The arithmetic comparison: hpquad's Dd and Qd (scalar code, and the array form once more through
# the SIMD lanes of precision::lanes) against QD (dd_real, qd_real, in its default and its IEEE
# configuration), Arb and MPFR at 106 and 212 bits, on the same inputs, timed the same way, in one
# run; writes the speed tables of precision/README.md.
#
#   bench/arith/run.sh                  everything: install, build, the rounds, the report
#   bench/arith/run.sh --only report    the report from the rounds already in results/
#
# Options: --rounds R (default 9): each round runs every program once, in a rotating order, and
# the report takes each time's median over the rounds; --reps K (default 20): each time is the
# best of K passes; --no-readme: leave precision/README.md alone.
#
# Needs (installed here with apt-get when missing; dependencies of this script only, never of
# hpquad): libqd-dev, libmpfr-dev, libflint-arb-dev, and Debian's source package of QD for the
# IEEE build (fetched with `apt-get source` through a private deb-src list under target/).
# Writes bench/arith/results/: rounds.jsonl (every time of every round), machine.json,
# results.json (the medians), report.md; and the section of precision/README.md between the
# markers <!-- arith-compare:begin --> and <!-- arith-compare:end -->.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench/arith
out=$here/results
build=target/arith-compare
only=all rounds=9 reps=20 readme=precision/README.md
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --no-readme) readme=""; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$only" in all|report) ;; *) echo "--only: report (or nothing for everything)" >&2; exit 2 ;; esac
mkdir -p "$out" "$build"
readme_arg=()
[ -n "$readme" ] && readme_arg=(--readme "$readme")

if [ "$only" = report ]; then
    python3 $here/compare_arith.py report $out/rounds.jsonl --out $out "${readme_arg[@]}"
    exit
fi

sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo

# QD, MPFR and Arb from Debian.
if [ ! -f /usr/include/qd/qd_real.h ] || [ ! -f /usr/include/mpfr.h ] || [ ! -f /usr/include/arb.h ]; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libqd-dev libmpfr-dev libflint-arb-dev
fi

# QD's IEEE configuration from the source of the installed package: Debian builds QD's default
# (sloppy addition, multiplication and division); the IEEE build differs in those three only.
qd_version=$(dpkg-query -W -f='${Version}' libqd-dev)
ieee=$build/qd-ieee
if [ ! -f $ieee/lib/libqd.a ] || [ "$(cat $ieee/version 2>/dev/null)" != "$qd_version" ]; then
    apt_dir=$(realpath $build)/apt
    mkdir -p $apt_dir/lists/partial
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    echo "deb-src http://deb.debian.org/debian $codename main" > $apt_dir/sources.list
    apt_opts=(-o Dir::Etc::SourceList=$apt_dir/sources.list -o Dir::Etc::SourceParts=/dev/null
              -o Dir::State::Lists=$apt_dir/lists)
    $sudo apt-get "${apt_opts[@]}" update -qq
    # The Debian packaging (debian.tar) only builds and installs; the upstream tarball is the
    # source. Take it even where the packaging part cannot be fetched.
    (cd $build && $sudo apt-get "${apt_opts[@]}" source --download-only "qd=$qd_version" || true)
    orig=$(ls $build/qd_*.orig.tar.* 2>/dev/null | head -1)
    if [ -z "$orig" ]; then
        echo "could not fetch the source of qd $qd_version (apt-get source)" >&2
        exit 1
    fi
    rm -rf $build/qd-src && mkdir -p $build/qd-src
    tar xf "$orig" -C $build/qd-src --strip-components=1
    echo "building QD $qd_version with --enable-ieee-add --disable-sloppy-mul --disable-sloppy-div (a minute or two)"
    (cd $build/qd-src && ./configure -q --prefix="$(realpath ..)/qd-ieee" --enable-ieee-add \
        --disable-sloppy-mul --disable-sloppy-div --disable-fortran --disable-shared \
        CXX=g++ CXXFLAGS="-O3 -march=native -ffp-contract=off" > /dev/null \
        && make -s -C src > /dev/null && make -s -C src install > /dev/null \
        && make -s -C include install > /dev/null)
    echo "$qd_version" > $ieee/version
fi

# The programs.
python3 $here/compare_arith.py inputs $build/inputs.bin
cxx=(g++ -O3 -march=native -ffp-contract=off -std=gnu++17)
if [ ! -x $build/compare_arith ] || [ $here/compare_arith.cpp -nt $build/compare_arith ]; then
    echo "building $build/compare_arith"
    "${cxx[@]}" $here/compare_arith.cpp -o $build/compare_arith \
        -lqd -lflint-arb -lflint -lmpfr -lgmp
fi
if [ ! -x $build/compare_arith_qd_ieee ] || [ $here/compare_arith.cpp -nt $build/compare_arith_qd_ieee ] \
    || [ $ieee/lib/libqd.a -nt $build/compare_arith_qd_ieee ]; then
    echo "building $build/compare_arith_qd_ieee"
    "${cxx[@]}" -DQD_ONLY -I$ieee/include $here/compare_arith.cpp -o $build/compare_arith_qd_ieee \
        $ieee/lib/libqd.a
fi
manifest=$here/hpquad/Cargo.toml
RUSTFLAGS="-C target-cpu=native" cargo build -q --release --locked --manifest-path $manifest \
    --target-dir $build/rust-native
RUSTFLAGS="" cargo build -q --release --locked --manifest-path $manifest \
    --target-dir $build/rust-default

# The rounds: every program once per round, in a rotating order, so that a busy moment of the
# machine falls on a different library each time.
programs=(
    "$build/compare_arith $build/inputs.bin $reps"
    "$build/compare_arith_qd_ieee $build/inputs.bin $reps IEEE"
    "$build/rust-native/release/arith-compare $build/inputs.bin $reps native"
    "$build/rust-default/release/arith-compare $build/inputs.bin $reps default"
)
python3 $here/compare_arith.py machine $out/machine.json --reps "$reps"
: > $out/rounds.jsonl
n=${#programs[@]}
for ((r = 1; r <= rounds; r++)); do
    echo "round $r of $rounds"
    for ((k = 0; k < n; k++)); do
        ${programs[$(((k + r) % n))]} | sed "s/^{/{\"round\":$r,/" >> $out/rounds.jsonl
    done
done

python3 $here/compare_arith.py report $out/rounds.jsonl --out $out "${readme_arg[@]}"
echo "wrote $out/report.md, results.json, rounds.jsonl${readme:+ and the speed tables of $readme}"
