# manetlab reference scenarios for ns-2.35 (written for manetlab; not taken
# from any other script).
#
# Usage:  ns manet.tcl key=value ...      (all keys optional, see `opt` below)
#
# Topology:  topo=chain  hops=N spacing=M      nodes 0..N at (i*M, 0)
#            topo=file   layout=FILE           "x y" lines = nodes 0..n-1,
#                                              "flow SRC DST START" lines
#            topo=moves  moves=FILE nodes=N gridx= gridy=
#                                              an ns-2 movement file (setdest
#                                              output) for nodes 0..N-1; one
#                                              flow src -> dst, or every
#                                              "flow SRC DST START STOP" line
#                                              of flows=FILE (CBR at pps=)
# Scheduler: sched=Splay|Calendar|Heap|List   (default: ns-2's Calendar)
# Traffic:   traffic=cbr  src= dst= size= rate=      (chain: one flow)
#            traffic=tcp  src= dst= size= window=    (FTP bulk, Reno)
#            (topo=file: every "flow" line of FILE is one CBR flow with
#             size= and pps=)
# Output:    lines starting "RESULT " (key=value), printed at t = stop.
#
# Everything that changes a result is an argument or is set explicitly
# below, so a run is fully described by its command line.

# ---------------------------------------------------------------- options
array set P {
    topo chain  hops 2  spacing 200.0  layout ""
    rtg AODV  ifqlen 50
    datarate 11Mb  basicrate 1Mb  rts 3000
    traffic cbr  src -1  dst 0  size 1470  rate 5Mb  pps 4
    window 8  tcp Reno
    start 1.0  stop 100.0  from 10.0
    seed 1  trace off  grid 0  offfile /dev/null
    moves ""  nodes 0  gridx 0  gridy 0
    flows ""  sched ""
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists P([lindex $kv 0])]} {
        puts stderr "bad argument '$a'; known keys: [lsort [array names P]]"
        exit 2
    }
    set P([lindex $kv 0]) [lindex $kv 1]
}

# ------------------------------------------------------- random numbers
# Every random draw in the 802.11 MAC, AODV/DSR jitter and ARP goes through
# the default RNG; seed N > 0 gives a reproducible, distinct stream.
global defaultRNG
$defaultRNG seed $P(seed)

# ---------------------------------------------- radio / MAC class defaults
# Values equal to the ns-2.35 defaults are set anyway so that the script
# states them. WaveLAN 914 MHz, 0.2818 W: 250 m receive, 550 m carrier sense
# with two-ray ground and 1.5 m antennas.
Phy/WirelessPhy set Pt_        0.28183815
Phy/WirelessPhy set freq_      914e+6
Phy/WirelessPhy set RXThresh_  3.652e-10
Phy/WirelessPhy set CSThresh_  1.559e-11
Phy/WirelessPhy set CPThresh_  10.0
Phy/WirelessPhy set L_         1.0
Antenna/OmniAntenna set X_  0
Antenna/OmniAntenna set Y_  0
Antenna/OmniAntenna set Z_  1.5
Antenna/OmniAntenna set Gt_ 1.0
Antenna/OmniAntenna set Gr_ 1.0

Mac/802_11 set dataRate_      $P(datarate)
Mac/802_11 set basicRate_     $P(basicrate)
Mac/802_11 set RTSThreshold_  $P(rts)
Mac/802_11 set CWMin_         31
Mac/802_11 set CWMax_         1023
Mac/802_11 set SlotTime_      0.000020
Mac/802_11 set SIFS_          0.000010
Mac/802_11 set PreambleLength_   144
Mac/802_11 set PLCPHeaderLength_ 48
Mac/802_11 set PLCPDataRate_  1.0e6
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set LongRetryLimit_  4

# ------------------------------------------------------------- topology
set xs {}
set ys {}
set flows {}
if {$P(topo) == "chain"} {
    for {set i 0} {$i <= $P(hops)} {incr i} {
        lappend xs [expr {$i * $P(spacing)}]
        lappend ys 0.0
    }
    set src [expr {$P(src) < 0 ? $P(hops) : $P(src)}]
    lappend flows [list $src $P(dst) $P(start) $P(stop)]
} elseif {$P(topo) == "file"} {
    set f [open $P(layout) r]
    while {[gets $f line] >= 0} {
        set line [string trim $line]
        if {$line == "" || [string index $line 0] == "#"} continue
        set hash [string first "#" $line]
        if {$hash >= 0} {set line [string range $line 0 [expr {$hash - 1}]]}
        if {[lindex $line 0] == "flow"} {
            lappend flows [lrange $line 1 4]
        } else {
            lappend xs [lindex $line 0]
            lappend ys [lindex $line 1]
        }
    }
    close $f
} elseif {$P(topo) == "moves"} {
    # positions come from the movement file once the nodes exist
    for {set i 0} {$i < $P(nodes)} {incr i} {
        lappend xs 0.0
        lappend ys 0.0
    }
    if {$P(flows) == ""} {
        lappend flows [list $P(src) $P(dst) $P(start) $P(stop)]
    } else {
        set f [open $P(flows) r]
        while {[gets $f line] >= 0} {
            if {[lindex $line 0] == "flow"} {lappend flows [lrange $line 1 4]}
        }
        close $f
    }
} else {
    puts stderr "topo must be chain, file or moves"; exit 2
}
set nn [llength $xs]
set gx 1.0
set gy 1.0
foreach x $xs y $ys {
    if {$x > $gx} {set gx $x}
    if {$y > $gy} {set gy $y}
}
if {$P(grid) > 0} {set gx $P(grid); set gy $P(grid)}
if {$P(gridx) > 0} {set gx $P(gridx); set gy $P(gridy)}

# ---------------------------------------------------------- simulator
set ns_ [new Simulator]
if {$P(sched) != ""} {$ns_ use-scheduler $P(sched)}
# ns-2.35 cannot build a wireless node without a trace-all file (the ARP
# table and the interface queue get a drop trace unconditionally), so
# trace=off opens one (offfile, /dev/null) with agent/router/MAC tracing
# OFF and, once the nodes exist, points every remaining drop trace at the
# null agent: then no trace line is ever formatted.
if {$P(trace) == "off"} {
    set tf [open $P(offfile) w]
    set tracing OFF
} else {
    # old (CMU) wireless trace format; trace=null writes it to /dev/null
    set tf [open [expr {$P(trace) == "null" ? "/dev/null" : $P(trace)}] w]
    set tracing ON
}
$ns_ trace-all $tf
set topo [new Topography]
$topo load_flatgrid [expr {$gx + 1}] [expr {$gy + 1}]
set god_ [create-god $nn]
set chan [new Channel/WirelessChannel]

if {$P(rtg) == "DSR"} {
    set ifq CMUPriQueue
} else {
    set ifq Queue/DropTail/PriQueue
}
$ns_ node-config -adhocRouting $P(rtg) \
    -llType LL -macType Mac/802_11 \
    -ifqType $ifq -ifqLen $P(ifqlen) \
    -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy \
    -channel $chan -topoInstance $topo \
    -agentTrace $tracing -routerTrace $tracing \
    -macTrace $tracing -movementTrace OFF

for {set i 0} {$i < $nn} {incr i} {
    set node($i) [$ns_ node]
    $node($i) random-motion 0
    $node($i) set X_ [lindex $xs $i]
    $node($i) set Y_ [lindex $ys $i]
    $node($i) set Z_ 0.0
    set node_($i) $node($i)
}
if {$P(topo) == "moves"} {
    # setdest output: "$node_(i) set X_ ..." and "$ns_ at t \"$node_(i) setdest x y v\""
    source $P(moves)
}

if {$P(trace) == "off"} {
    set null [$ns_ set nullAgent_]
    for {set i 0} {$i < $nn} {incr i} {
        foreach v {arptable_ ifq_(0) mac_(0) ragent_} {
            if {![catch {$node($i) set $v} obj] && $obj != ""} {
                catch {$obj drop-target $null}
            }
        }
        # DSR also logs its own "S..." lines through a trace object (it
        # cannot be given none): give it one attached to no file. The
        # lines are still formatted, never written.
        if {![catch {$node($i) set dsr_agent_} obj] && $obj != ""} {
            set quiet [new Trace/Generic]
            $quiet target $null
            $obj tracetarget $quiet
        }
    }
}

# ------------------------------------------------------------ traffic
# Values are read inside procs at the time they run (a "[...]" inside a
# double-quoted `$ns_ at` string would be evaluated when scheduled, i.e.
# at t = 0: that is why a first attempt printed 0 bytes).
set k 0
foreach fl $flows {
    set s [lindex $fl 0]
    set d [lindex $fl 1]
    set t0 [lindex $fl 2]
    set t1 [lindex $fl 3]
    if {$P(traffic) == "cbr"} {
        set agent($k) [new Agent/UDP]
        # Agent/UDP splits an application write larger than its
        # packetSize_ (default 1000) into several packets: make it hold one
        # CBR packet whole.
        $agent($k) set packetSize_ $P(size)
        set sink($k) [new Agent/LossMonitor]
        set app($k) [new Application/Traffic/CBR]
        $app($k) set packetSize_ $P(size)
        if {$P(topo) == "file" || $P(flows) != ""} {
            $app($k) set interval_ [expr {1.0 / $P(pps)}]
        } else {
            $app($k) set rate_ $P(rate)
        }
        $app($k) set random_ 0
        $app($k) set maxpkts_ 268435456
    } else {
        set agent($k) [new Agent/TCP/$P(tcp)]
        $agent($k) set packetSize_ $P(size)
        $agent($k) set window_ $P(window)
        set sink($k) [new Agent/TCPSink]
        set app($k) [new Application/FTP]
    }
    $ns_ attach-agent $node($s) $agent($k)
    $ns_ attach-agent $node($d) $sink($k)
    $ns_ connect $agent($k) $sink($k)
    $app($k) attach-agent $agent($k)
    $ns_ at $t0 "$app($k) start"
    if {$t1 < $P(stop)} {$ns_ at $t1 "$app($k) stop"}
    set fsrc($k) $s
    set fdst($k) $d
    set fstart($k) $t0
    set fstop($k) [expr {$t1 < $P(stop) ? $t1 : $P(stop)}]
    incr k
}
set nflows $k

# delivered payload: packets received by the sink agent
proc delivered {k} {
    global P sink agent
    if {$P(traffic) == "cbr"} {
        return [$sink($k) set npkts_]
    } else {
        # cumulative ACK at the sender = in-order packets at the sink; the
        # one-way TCP's SYN (syn_ true by default) takes sequence number 0,
        # data packets are 1, 2, ...
        set a [$agent($k) set ack_]
        return [expr {$a > 0 ? $a : 0}]
    }
}
proc mark {} {
    global nflows mark0
    for {set k 0} {$k < $nflows} {incr k} {set mark0($k) [delivered $k]}
}
proc finish {} {
    global ns_ P nflows mark0 fsrc fdst fstart fstop nn
    set T [expr {$P(stop) - $P(from)}]
    set tot 0
    set totall 0
    set totsent 0
    for {set k 0} {$k < $nflows} {incr k} {
        set n [delivered $k]
        set dn [expr {$n - $mark0($k)}]
        set gp [expr {$dn * $P(size) * 8.0 / $T}]
        if {$P(traffic) == "cbr"} {
            # CBR with random_ 0 sends at t0, t0 + i, ... while < t1
            if {$P(topo) == "file" || $P(flows) != ""} {
                set iv [expr {1.0 / $P(pps)}]
            } else {
                set iv [expr {$P(size) * 8.0 / [bw_parse $P(rate)]}]
            }
            set nsent [expr {int(ceil(($fstop($k) - $fstart($k)) / $iv - 1e-9))}]
            set sent " sent_calc=$nsent"
            incr totsent $nsent
        } else {
            set sent ""
        }
        puts "RESULT flow=$k src=$fsrc($k) dst=$fdst($k) pkts_total=$n\
              pkts_window=$dn goodput_bps=[format %.1f $gp]$sent"
        incr tot $dn
        incr totall $n
    }
    set pdr na
    if {$totsent > 0} {set pdr [format %.4f [expr {double($totall) / $totsent}]]}
    puts "RESULT all nodes=$nn flows=$nflows pkts_total=$totall\
          pkts_window=$tot window_s=$T\
          goodput_bps=[format %.1f [expr {$tot * $P(size) * 8.0 / $T}]]\
          sent_calc=$totsent pdr=$pdr"
    global tf
    if {[info exists tf]} {$ns_ flush-trace; close $tf}
    $ns_ halt
}
$ns_ at $P(from) "mark"
$ns_ at $P(stop) "finish"
puts "CONFIG [array get P]"
$ns_ run
