# manet-routing-compare in ns-2.35, for manetlab's `mrc` study (written for
# manetlab; not taken from any other script).
#
# Usage:  ns mrc.tcl rtg=AODV|DSR|DSDV moves=FILE seed=N trace=FILE
#
# The scenario of ns-3's examples/routing/manet-routing-compare.cc, with
# ns-2's models where ns-2 has no equivalent:
# - 50 nodes in 300 m x 1500 m, moving as in FILE (written by ns-2's own
#   `setdest -v 1 -n 50 -p PAUSE -M SPEED -t 200 -x 300 -y 1500`, God lines
#   removed; see run.sh);
# - 802.11 DSSS at 11 Mbit/s for data and for control/broadcast frames
#   (ns-2 sends broadcasts at basicRate_), PLCP at 1 Mbit/s with the long
#   preamble, no RTS/CTS (ns-3's default threshold is above every frame);
# - Friis (free space) at 5.15 GHz, 7.5 dBm, unit antenna gains: ns-3's
#   FriisPropagationLossModel keeps its default 5.15 GHz in ns-3's example;
# - receive and carrier-sense thresholds -82 dBm (ns-3's preamble
#   detection minimum RSSI; ns-2 has no SINR reception: capture ratio
#   10 dB, ns-2's default);
# - 10 CBR/UDP flows, node 10+i -> node i, 64-byte payloads every 0.25 s,
#   from 100 + 0.1 i s to 200 s; the run ends at 200 s.
# The old (CMU) wireless trace of agents and routing agents goes to FILE;
# summarize.py counts from it what ns-3's program counts.

array set P { rtg AODV  moves ""  seed 1  trace /dev/null  stop 200.0 }
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists P([lindex $kv 0])]} {
        puts stderr "bad argument '$a'; known keys: [lsort [array names P]]"
        exit 2
    }
    set P([lindex $kv 0]) [lindex $kv 1]
}
global defaultRNG
$defaultRNG seed $P(seed)

# 7.5 dBm = 5.6234e-3 W; -82 dBm = 6.3096e-12 W.
Phy/WirelessPhy set Pt_        5.6234e-3
Phy/WirelessPhy set freq_      5.15e+9
Phy/WirelessPhy set RXThresh_  6.3096e-12
Phy/WirelessPhy set CSThresh_  6.3096e-12
Phy/WirelessPhy set CPThresh_  10.0
Phy/WirelessPhy set L_         1.0
Antenna/OmniAntenna set X_  0
Antenna/OmniAntenna set Y_  0
Antenna/OmniAntenna set Z_  1.5
Antenna/OmniAntenna set Gt_ 1.0
Antenna/OmniAntenna set Gr_ 1.0
Mac/802_11 set dataRate_      11Mb
Mac/802_11 set basicRate_     11Mb
Mac/802_11 set RTSThreshold_  3000
Mac/802_11 set CWMin_         31
Mac/802_11 set CWMax_         1023
Mac/802_11 set SlotTime_      0.000020
Mac/802_11 set SIFS_          0.000010
Mac/802_11 set PreambleLength_   144
Mac/802_11 set PLCPHeaderLength_ 48
Mac/802_11 set PLCPDataRate_  1.0e6
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set LongRetryLimit_  4

set nn 50
set ns_ [new Simulator]
set tf [open $P(trace) w]
$ns_ trace-all $tf
set topo [new Topography]
$topo load_flatgrid 301 1501
set god_ [create-god $nn]
set chan [new Channel/WirelessChannel]
set ifq [expr {$P(rtg) == "DSR" ? "CMUPriQueue" : "Queue/DropTail/PriQueue"}]
$ns_ node-config -adhocRouting $P(rtg) \
    -llType LL -macType Mac/802_11 \
    -ifqType $ifq -ifqLen 50 \
    -antType Antenna/OmniAntenna \
    -propType Propagation/FreeSpace \
    -phyType Phy/WirelessPhy \
    -channel $chan -topoInstance $topo \
    -agentTrace ON -routerTrace ON -macTrace OFF -movementTrace OFF
for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
}
source $P(moves)

for {set k 0} {$k < 10} {incr k} {
    set udp($k) [new Agent/UDP]
    $udp($k) set packetSize_ 64
    set sink($k) [new Agent/LossMonitor]
    set cbr($k) [new Application/Traffic/CBR]
    $cbr($k) set packetSize_ 64
    $cbr($k) set interval_ 0.25
    $cbr($k) set random_ 0
    $cbr($k) set maxpkts_ 268435456
    $ns_ attach-agent $node_([expr {10 + $k}]) $udp($k)
    $ns_ attach-agent $node_($k) $sink($k)
    $ns_ connect $udp($k) $sink($k)
    $cbr($k) attach-agent $udp($k)
    $ns_ at [expr {100.0 + 0.1 * $k}] "$cbr($k) start"
}
proc finish {} {
    global ns_ tf sink
    set n 0
    for {set k 0} {$k < 10} {incr k} {incr n [$sink($k) set npkts_]}
    puts "RESULT received=$n"
    $ns_ flush-trace
    close $tf
    $ns_ halt
}
$ns_ at $P(stop) "finish"
$ns_ run
