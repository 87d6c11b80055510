# How many times does ns-2.35's 802.11 MAC send a unicast frame that is
# never acknowledged? Two nodes 200 m apart, AODV, one 512-byte CBR packet
# every 0.5 s from node 0 to node 1; at t = 2 s node 1 jumps to 2000 m (out
# of carrier-sense range). The trace then shows the attempts for the first
# lost packet and its "D ... MAC ... RET" drop.
#
# Usage: ns retry_check.tcl RTS_THRESHOLD TRACEFILE
#   RTS_THRESHOLD 0: RTS/CTS before every unicast frame; 3000: never.
# Count the attempts with, e.g.:
#   awk '$1=="s" && $4=="MAC" && $2>2 && $2<3' TRACEFILE
set rts [lindex $argv 0]
set trf [lindex $argv 1]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 2Mb
Mac/802_11 set RTSThreshold_ $rts
set ns_ [new Simulator]
set tf [open $trf w]
$ns_ trace-all $tf
set topo [new Topography]
$topo load_flatgrid 2100 10
create-god 2
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -agentTrace ON -routerTrace ON -macTrace ON -movementTrace OFF
for {set i 0} {$i < 2} {incr i} {
    set node($i) [$ns_ node]
    $node($i) random-motion 0
    $node($i) set X_ [expr {$i * 200.0}]
    $node($i) set Y_ 5.0
    $node($i) set Z_ 0.0
}
set udp [new Agent/UDP]
$udp set packetSize_ 512
set sink [new Agent/LossMonitor]
$ns_ attach-agent $node(0) $udp
$ns_ attach-agent $node(1) $sink
$ns_ connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 512
$cbr set interval_ 0.5
$cbr set random_ 0
$cbr attach-agent $udp
$ns_ at 0.1 "$cbr start"
# a move at 1e6 m/s: node 1 is at 2000 m a few microseconds after t = 2
$ns_ at 2.0 "$node(1) setdest 2000.0 5.0 1000000.0"
proc done {} {
    global ns_ tf sink
    puts "RESULT delivered=[$sink set npkts_]"
    $ns_ flush-trace
    close $tf
    $ns_ halt
}
$ns_ at 4.0 "done"
$ns_ run
