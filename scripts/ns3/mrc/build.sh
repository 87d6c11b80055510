#!/bin/sh
# Builds mrc.cc against the installed ns-3 (Debian libns3-dev 3.37) into ./mrc.
# pkg-config's link line names libgsl.so / libsqlite3.so, which need the -dev
# packages; the ns-3 shared libraries already depend on them, so they are
# left out here.
set -e
cd "$(dirname "$0")"
MODS="ns3-aodv ns3-olsr ns3-dsdv ns3-dsr ns3-wifi ns3-mobility ns3-applications ns3-internet ns3-network ns3-core ns3-propagation"
LIBS=$(pkg-config --libs $MODS | tr ' ' '\n' | grep '^-l' | sort -u | tr '\n' ' ')
g++ -O2 -std=c++17 -o mrc.new mrc.cc $(pkg-config --cflags $MODS) $LIBS
mv mrc.new mrc
