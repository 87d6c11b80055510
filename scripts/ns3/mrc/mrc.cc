// manet-routing-compare for manetlab's `mrc` study: the scenario of ns-3's
// examples/routing/manet-routing-compare.cc, written for this repository
// against the installed ns-3 (3.37, Debian libns3-dev), with the metrics
// manetlab reports (PDR, goodput, delay, normalized routing load) and the
// network's mean degree and connectivity.
//
// Scenario (as in ns-3's example): 50 nodes, 300 m x 1500 m, random
// waypoint with speed U[0, max] and a constant pause, positions and
// waypoints uniform in the rectangle; 802.11b ad hoc, DSSS 11 Mbit/s for
// data, control and broadcast frames, tx power 7.5 dBm, Friis loss,
// YANS PHY defaults (sensitivity -101 dBm, CCA-ED -62 dBm, noise figure
// 7 dB, threshold preamble detection); 10 UDP flows of 64-byte packets at
// 2048 bit/s (4 packets/s), node 10+i -> node i, each starting at a
// uniform time in [100, 101] s and stopping at 200 s; the run ends at 200 s.
//
// With --moves=FILE the nodes move as in the ns-2 movement file FILE
// (ns-3's Ns2MobilityHelper; the study's files were written by ns-2's
// setdest and are the ones ns-2 and manetlab run on), and flow i starts at
// 100 + 0.1 i s as in ns-2's mrc.tcl and manetlab's study, instead of the
// random waypoint draw and the uniform start: the paired comparison.
//
// One CSV line per run on stdout (header with --header):
//   protocol,max_speed,pause,run,offered,sent,received,pdr,goodput_kbps,delay_ms,
//   routing_tx,routing_bytes,data_tx,nrl,mean_degree,connected
// offered: packets the applications generated; sent: those the sockets
// accepted (ns-3's OnOff "Tx" trace); pdr = received / offered.
// routing_tx: routing packets handed to a MAC (each hop, each broadcast
// once) over the whole run; data_tx: data packets handed to a MAC (each
// hop); nrl = routing_tx / received; goodput = received payload bits /
// 100 s (the traffic window); delay = mean one-way delay of received
// packets (from the application's send time); mean_degree: mean number of
// nodes within --range m, sampled every second in [100, 200) s; connected:
// fraction of (flow, sample) pairs whose sink is reachable from its source
// in that unit-disk graph.
//
// With --counters=FILE the run also appends one line of counters to FILE
// (header: COUNTERS_HEADER below, written by run.sh): AODV control packets
// by type, OLSR messages by type, data packets dropped by IPv4 (by reason),
// ARP, the MAC (retry limit, queue lifetime, full queue) and DSR, and PHY
// reception failures. They are the counters docs/mrc-report.md explains the
// differences with; connecting them does not change the run (no random
// draws), so a run's main line is the same with and without them.
//
// COUNTERS_HEADER: protocol,max_speed,pause,run,offered,refused,received,
//   rreq_orig,rreq_fwd,rrep,hello,rerr,olsr_packets,olsr_hello,olsr_tc,
//   olsr_other,ip_ttl,ip_noroute,ip_route_error,ip_other,arp_drop (data),
//   mac_retry_data,mac_retry_ctl,mac_lifetime_data,mac_enqueue_data,
//   mac_txdrop,dsr_drop,phy_rx_drop

#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/dsdv-module.h"
#include "ns3/dsr-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{
const uint16_t kPort = 9;
const int kNodes = 50;
const int kSinks = 10;
const double kTotal = 200.0;
const double kStart = 100.0;

uint64_t g_sent = 0;
uint64_t g_received = 0;
uint64_t g_rxBytes = 0;
double g_delaySum = 0.0;
uint64_t g_routingTx = 0;
uint64_t g_routingBytes = 0;
uint64_t g_dataTx = 0;
double g_degreeSum = 0.0;
uint64_t g_degreeSamples = 0;
uint64_t g_connected = 0;
uint64_t g_connSamples = 0;
double g_range = 0.0;
// Packets the applications generate (4 per second from each flow's start),
// whether or not the socket accepts them: ns-3's UDP socket refuses a
// packet when the routing protocol has no route at the source (OLSR, DSDV),
// and its OnOff application then holds it and drops the next one; the
// application still meant to send it. PDR = received / offered.
uint64_t g_offered = 0;
NodeContainer g_nodes;

// Counters that explain the differences (written with --counters=FILE, one
// CSV line per run; see the header in WriteCounters). Control packets are
// counted where OnMacTx counts them (handed to a MAC, each hop); data
// drops are counted for data packets only (UDP to port 9).
struct Counters
{
    uint64_t rreqOrig = 0;  // AODV RREQs handed to a MAC by their originator
    uint64_t rreqFwd = 0;   // ... rebroadcast by other nodes
    uint64_t rrep = 0;      // AODV RREPs (unicast, not HELLOs)
    uint64_t hello = 0;     // AODV HELLOs (RREPs to a broadcast address)
    uint64_t rerr = 0;      // AODV RERRs
    uint64_t olsrPackets = 0;  // OLSR packets sent by the OLSR agent
    uint64_t olsrHello = 0;    // OLSR HELLO messages in them
    uint64_t olsrTc = 0;       // OLSR TC messages in them (originated + forwarded)
    uint64_t olsrOther = 0;    // MID/HNA messages
    uint64_t ipTtl = 0;        // data packets dropped by IPv4: TTL expired
    uint64_t ipNoRoute = 0;    // ... no route (at a forwarder)
    uint64_t ipRouteError = 0; // ... route error (AODV/DSDV queue: discovery failed, timeout, full; RERR)
    uint64_t ipOther = 0;      // ... other IPv4 drop reasons
    uint64_t arpDrop = 0;      // data packets dropped by ARP (no reply, pending queue full, dead entry)
    uint64_t macRetry = 0;     // data MPDUs dropped after the retry limit
    uint64_t macRetryCtl = 0;  // control MPDUs dropped after the retry limit
    uint64_t macLifetime = 0;  // data MPDUs dropped for their queue lifetime (500 ms)
    uint64_t macEnqueue = 0;   // data MPDUs refused by a full queue
    uint64_t macTxDrop = 0;    // packets (any) dropped by the MAC before queueing
    uint64_t dsrDrop = 0;      // packets (any) dropped by DSR (its Drop trace)
    uint64_t phyRxDrop = 0;    // frames the PHY failed to receive (any reason)
};

Counters g_c;

// --fates=FILE: what became of every data packet, by the last event seen
// for it (its uid: ns-3 keeps a packet's uid in its copies, so the copies
// DSR's maintenance buffer retransmits and the salvaged ones count as the
// one packet). Unlike the counters above, which count every copy that was
// dropped, each packet the sockets accepted is in exactly one class, so
// the classes add up to the packets sent. Classes (FATES_HEADER):
// delivered; never_to_mac_old / _recent: never handed to any MAC, sent
// more / less than 30 s before the end (held by the source's routing: DSR's
// send buffer, 30 s MaxSendBuffTime, drops silently when a packet times
// out or the 64-packet buffer overflows; DSDV's queue reports its drops to
// IPv4); last_mac_tx: last handed to a MAC, neither received nor dropped
// after (in flight at the end, or lost unseen); last_mac_rx: last received
// by a node's MAC, then nothing (held or dropped silently by that node's
// routing: DSR's maintenance buffer and salvage); last_mac_retry: dropped
// after the MAC's retry limit and no copy went further; last_mac_other:
// MAC queue lifetime / full queue / MacTxDrop; last_arp: ArpL3Protocol's
// Drop (dead entry, pending queue full); last_arp_giveup: ArpCache's Drop
// (held packets dropped when the resolution failed: not in arp_drop
// above); last_ip: Ipv4L3Protocol's Drop (no route, route error, TTL);
// last_dsr: DsrRouting's Drop trace.
// FATES_HEADER: protocol,max_speed,pause,run,offered,sent,delivered,
//   never_to_mac_old,never_to_mac_recent,last_mac_tx,last_mac_rx,
//   last_mac_retry,last_mac_other,last_arp,last_arp_giveup,last_ip,last_dsr
enum FateClass : uint8_t
{
    F_NONE = 0,
    F_MAC_TX,
    F_MAC_RX,
    F_MAC_RETRY,
    F_MAC_OTHER,
    F_ARP,
    F_ARP_GIVEUP,
    F_IP,
    F_DSR,
    F_DELIVERED,
    F_COUNT
};

struct PacketFate
{
    uint8_t last = F_NONE;
    double sentAt = 0.0;
};

bool g_trackFates = false;
std::unordered_map<uint64_t, PacketFate> g_fates;

// Records event `c` for packet `p` if it is a data packet being tracked;
// a delivered packet stays delivered.
void
Mark(Ptr<const Packet> p, FateClass c)
{
    if (!g_trackFates)
    {
        return;
    }
    auto it = g_fates.find(p->GetUid());
    if (it != g_fates.end() && it->second.last != F_DELIVERED)
    {
        it->second.last = c;
    }
}

// The UDP destination port of an IPv4 packet's payload (0 if not UDP).
uint16_t
UdpPort(uint8_t protocol, Ptr<const Packet> payload)
{
    if (protocol != 17 || payload->GetSize() < 8)
    {
        return 0;
    }
    UdpHeader udp;
    payload->PeekHeader(udp);
    return udp.GetDestinationPort();
}

// A WifiMac MPDU's packet is data when it is IPv4/UDP to port 9 (or DSR
// with message type 2).
bool
IsDataMsdu(Ptr<const Packet> msdu)
{
    Ptr<Packet> p = msdu->Copy();
    LlcSnapHeader llc;
    if (p->GetSize() < llc.GetSerializedSize())
    {
        return false;
    }
    p->RemoveHeader(llc);
    if (llc.GetType() != 0x0800)
    {
        return false;
    }
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() == 48)
    {
        dsr::DsrFsHeader fs;
        p->PeekHeader(fs);
        return fs.GetMessageType() == 2;
    }
    return UdpPort(ip.GetProtocol(), p) == kPort;
}

void
OnIpDrop(const Ipv4Header& ip, Ptr<const Packet> p, Ipv4L3Protocol::DropReason reason, Ptr<Ipv4>, uint32_t)
{
    Mark(p, F_IP);
    if (UdpPort(ip.GetProtocol(), p) != kPort)
    {
        return;
    }
    switch (reason)
    {
    case Ipv4L3Protocol::DROP_TTL_EXPIRED:
        g_c.ipTtl++;
        break;
    case Ipv4L3Protocol::DROP_NO_ROUTE:
        g_c.ipNoRoute++;
        break;
    case Ipv4L3Protocol::DROP_ROUTE_ERROR:
        g_c.ipRouteError++;
        break;
    default:
        g_c.ipOther++;
    }
}

void
OnMacDropped(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    bool data = IsDataMsdu(mpdu->GetPacket());
    Mark(mpdu->GetPacket(), reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT ? F_MAC_RETRY : F_MAC_OTHER);
    switch (reason)
    {
    case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
        (data ? g_c.macRetry : g_c.macRetryCtl)++;
        break;
    case WIFI_MAC_DROP_EXPIRED_LIFETIME:
        g_c.macLifetime += data;
        break;
    default:
        g_c.macEnqueue += data;
    }
}

void
OnAnyDrop(uint64_t* counter, Ptr<const Packet>)
{
    (*counter)++;
}

// ArpL3Protocol's Drop trace: the packet with its IPv4 header put back.
void
OnArpDrop(Ptr<const Packet> packet)
{
    Mark(packet, F_ARP);
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    if (p->GetSize() < 20)
    {
        return;
    }
    p->RemoveHeader(ip);
    if (UdpPort(ip.GetProtocol(), p) == kPort)
    {
        g_c.arpDrop++;
    }
    else if (ip.GetProtocol() == 48)
    {
        dsr::DsrFsHeader fs;
        p->PeekHeader(fs);
        g_c.arpDrop += fs.GetMessageType() == 2;
    }
}

// Fate-only traces (--fates).
void
OnMark(FateClass c, Ptr<const Packet> p)
{
    Mark(p, c);
}

void
OnPhyRxDrop(Ptr<const Packet>, WifiPhyRxfailureReason)
{
    g_c.phyRxDrop++;
}

void
OnOlsrTx(const olsr::PacketHeader&, const olsr::MessageList& msgs)
{
    g_c.olsrPackets++;
    for (const auto& m : msgs)
    {
        switch (m.GetMessageType())
        {
        case olsr::MessageHeader::HELLO_MESSAGE:
            g_c.olsrHello++;
            break;
        case olsr::MessageHeader::TC_MESSAGE:
            g_c.olsrTc++;
            break;
        default:
            g_c.olsrOther++;
        }
    }
}

// An AODV control packet handed to a MAC (p after its UDP header).
void
CountAodv(const Ipv4Header& ip, Ptr<Packet> p)
{
    aodv::TypeHeader t;
    p->RemoveHeader(t);
    if (!t.IsValid())
    {
        return;
    }
    switch (t.Get())
    {
    case aodv::AODVTYPE_RREQ: {
        aodv::RreqHeader rreq;
        p->PeekHeader(rreq);
        (rreq.GetOrigin() == ip.GetSource() ? g_c.rreqOrig : g_c.rreqFwd)++;
        break;
    }
    case aodv::AODVTYPE_RREP: {
        // ns-3 sends a HELLO as an RREP to the subnet-directed broadcast.
        uint8_t last = ip.GetDestination().Get() & 0xff;
        (last == 0xff ? g_c.hello : g_c.rrep)++;
        break;
    }
    case aodv::AODVTYPE_RERR:
        g_c.rerr++;
        break;
    default:
        break;
    }
}

void
OnTx(Ptr<const Packet> p)
{
    g_sent++;
    if (g_trackFates)
    {
        g_fates[p->GetUid()] = PacketFate{F_NONE, Simulator::Now().GetSeconds()};
    }
}

void
OnReceive(Ptr<Socket> socket)
{
    Ptr<Packet> p;
    Address from;
    while ((p = socket->RecvFrom(from)))
    {
        SeqTsSizeHeader h;
        uint32_t size = p->GetSize();
        p->RemoveHeader(h);
        Mark(p, F_DELIVERED);
        g_received++;
        g_rxBytes += size;
        g_delaySum += (Simulator::Now() - h.GetTs()).GetSeconds();
    }
}

// Classifies every packet a MAC is handed: data (UDP to port 9, or DSR
// with message type 2) or routing control (AODV 654, OLSR 698, DSDV 269,
// DSR message type 1). ARP and anything else counts as neither.
void
OnMacTx(Ptr<const Packet> packet)
{
    Mark(packet, F_MAC_TX);
    Ptr<Packet> p = packet->Copy();
    LlcSnapHeader llc;
    if (p->GetSize() < llc.GetSerializedSize())
    {
        return;
    }
    p->RemoveHeader(llc);
    if (llc.GetType() != 0x0800)
    {
        return;
    }
    uint32_t bytes = p->GetSize();
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() == 17)
    {
        UdpHeader udp;
        p->RemoveHeader(udp);
        if (udp.GetDestinationPort() == kPort)
        {
            g_dataTx++;
        }
        else
        {
            g_routingTx++;
            g_routingBytes += bytes;
            if (udp.GetDestinationPort() == 654)
            {
                CountAodv(ip, p);
            }
        }
    }
    else if (ip.GetProtocol() == 48)
    {
        dsr::DsrFsHeader fs;
        p->PeekHeader(fs);
        if (fs.GetMessageType() == 2)
        {
            g_dataTx++;
        }
        else
        {
            g_routingTx++;
            g_routingBytes += bytes;
        }
    }
}

void
SampleTopology()
{
    std::vector<Vector> pos(kNodes);
    for (int i = 0; i < kNodes; i++)
    {
        pos[i] = g_nodes.Get(i)->GetObject<MobilityModel>()->GetPosition();
    }
    std::vector<std::vector<int>> adj(kNodes);
    double r2 = g_range * g_range;
    for (int i = 0; i < kNodes; i++)
    {
        for (int j = i + 1; j < kNodes; j++)
        {
            double dx = pos[i].x - pos[j].x;
            double dy = pos[i].y - pos[j].y;
            if (dx * dx + dy * dy <= r2)
            {
                adj[i].push_back(j);
                adj[j].push_back(i);
            }
        }
    }
    for (int i = 0; i < kNodes; i++)
    {
        g_degreeSum += adj[i].size();
    }
    g_degreeSamples += kNodes;
    for (int f = 0; f < kSinks; f++)
    {
        std::vector<bool> seen(kNodes, false);
        std::queue<int> q;
        q.push(kSinks + f);
        seen[kSinks + f] = true;
        while (!q.empty())
        {
            int u = q.front();
            q.pop();
            for (int v : adj[u])
            {
                if (!seen[v])
                {
                    seen[v] = true;
                    q.push(v);
                }
            }
        }
        g_connected += seen[f] ? 1 : 0;
        g_connSamples++;
    }
    if (Simulator::Now().GetSeconds() + 1.0 < kTotal)
    {
        Simulator::Schedule(Seconds(1.0), &SampleTopology);
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string protocol = "AODV";
    double maxSpeed = 20.0;
    double pause = 0.0;
    double txp = 7.5;
    double total = kTotal;
    bool header = false;
    bool probe = false;
    std::string counters;
    std::string moves;
    std::string fates;
    g_range = 100.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("protocol", "AODV, OLSR, DSDV or DSR", protocol);
    cmd.AddValue("speed", "maximum node speed (m/s)", maxSpeed);
    cmd.AddValue("pause", "pause time (s)", pause);
    cmd.AddValue("txp", "transmit power (dBm)", txp);
    cmd.AddValue("time", "run length (s)", total);
    cmd.AddValue("range", "unit-disk range for degree and connectivity (m)", g_range);
    cmd.AddValue("header", "print the CSV header first", header);
    cmd.AddValue("counters", "append the run's counters as a CSV line to this file", counters);
    cmd.AddValue("fates", "append what became of every data packet as a CSV line to this file", fates);
    cmd.AddValue("moves", "ns-2 movement file (setdest); flows then start at 100 + 0.1 i s", moves);
    cmd.AddValue("probe", "print the PHY and loss defaults on stderr", probe);
    cmd.Parse(argc, argv);

    std::string phyMode("DsssRate11Mbps");
    Config::SetDefault("ns3::OnOffApplication::PacketSize", StringValue("64"));
    Config::SetDefault("ns3::OnOffApplication::DataRate", StringValue("2048bps"));
    Config::SetDefault("ns3::OnOffApplication::EnableSeqTsSizeHeader", BooleanValue(true));
    Config::SetDefault("ns3::WifiRemoteStationManager::NonUnicastMode", StringValue(phyMode));

    g_nodes.Create(kNodes);

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    YansWifiPhyHelper wifiPhy;
    YansWifiChannelHelper wifiChannel;
    wifiChannel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    wifiChannel.AddPropagationLoss("ns3::FriisPropagationLossModel");
    wifiPhy.SetChannel(wifiChannel.Create());
    WifiMacHelper wifiMac;
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(phyMode),
                                 "ControlMode",
                                 StringValue(phyMode));
    wifiPhy.Set("TxPowerStart", DoubleValue(txp));
    wifiPhy.Set("TxPowerEnd", DoubleValue(txp));
    wifiMac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(wifiPhy, wifiMac, g_nodes);

    if (probe)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(0));
        Ptr<WifiPhy> phy = dev->GetPhy();
        DoubleValue sens;
        DoubleValue cca;
        phy->GetAttribute("RxSensitivity", sens);
        phy->GetAttribute("CcaEdThreshold", cca);
        PointerValue pd;
        phy->GetAttribute("PreambleDetectionModel", pd);
        PointerValue erm;
        Ptr<YansWifiPhy> yphy = DynamicCast<YansWifiPhy>(phy);
        std::fprintf(stderr,
                     "RxSensitivity %.1f dBm, CcaEdThreshold %.1f dBm, frequency %u MHz\n",
                     sens.Get(),
                     cca.Get(),
                     phy->GetFrequency());
        Ptr<Object> pdm = pd.Get<Object>();
        if (pdm)
        {
            DoubleValue th;
            DoubleValue minRssi;
            pdm->GetAttribute("Threshold", th);
            pdm->GetAttribute("MinimumRssi", minRssi);
            std::fprintf(stderr,
                         "preamble detection %s: threshold %.1f dB, minimum RSSI %.1f dBm\n",
                         pdm->GetInstanceTypeId().GetName().c_str(),
                         th.Get(),
                         minRssi.Get());
        }
        else
        {
            std::fprintf(stderr, "no preamble detection model\n");
        }
        Ptr<FriisPropagationLossModel> friis = CreateObject<FriisPropagationLossModel>();
        std::fprintf(stderr, "Friis default frequency %.3e Hz\n", friis->GetFrequency());
        Ptr<ConstantPositionMobilityModel> a = CreateObject<ConstantPositionMobilityModel>();
        Ptr<ConstantPositionMobilityModel> b = CreateObject<ConstantPositionMobilityModel>();
        for (double d : {50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0})
        {
            b->SetPosition(Vector(d, 0, 0));
            std::fprintf(stderr, "  %5.0f m: %.2f dBm\n", d, friis->CalcRxPower(txp, a, b));
        }
    }

    if (!moves.empty())
    {
        // Node ids 0..49 are g_nodes (created first): the file's $node_(i).
        Ns2MobilityHelper ns2(moves);
        ns2.Install();
    }
    else
    {
    MobilityHelper mobility;
    int64_t streamIndex = 0;
    ObjectFactory pos;
    pos.SetTypeId("ns3::RandomRectanglePositionAllocator");
    pos.Set("X", StringValue("ns3::UniformRandomVariable[Min=0.0|Max=300.0]"));
    pos.Set("Y", StringValue("ns3::UniformRandomVariable[Min=0.0|Max=1500.0]"));
    Ptr<PositionAllocator> alloc = pos.Create()->GetObject<PositionAllocator>();
    streamIndex += alloc->AssignStreams(streamIndex);
    std::ostringstream speed;
    speed << "ns3::UniformRandomVariable[Min=0.0|Max=" << maxSpeed << "]";
    std::ostringstream pauseVar;
    pauseVar << "ns3::ConstantRandomVariable[Constant=" << pause << "]";
    mobility.SetMobilityModel("ns3::RandomWaypointMobilityModel",
                              "Speed",
                              StringValue(speed.str()),
                              "Pause",
                              StringValue(pauseVar.str()),
                              "PositionAllocator",
                              PointerValue(alloc));
    mobility.SetPositionAllocator(alloc);
    mobility.Install(g_nodes);
    streamIndex += mobility.AssignStreams(g_nodes, streamIndex);
    }

    AodvHelper aodv;
    OlsrHelper olsr;
    DsdvHelper dsdv;
    DsrHelper dsr;
    DsrMainHelper dsrMain;
    Ipv4ListRoutingHelper list;
    InternetStackHelper internet;
    if (protocol == "OLSR")
    {
        list.Add(olsr, 100);
    }
    else if (protocol == "AODV")
    {
        list.Add(aodv, 100);
    }
    else if (protocol == "DSDV")
    {
        list.Add(dsdv, 100);
    }
    else if (protocol != "DSR")
    {
        NS_FATAL_ERROR("unknown protocol " << protocol);
    }
    if (protocol != "DSR")
    {
        internet.SetRoutingHelper(list);
        internet.Install(g_nodes);
    }
    else
    {
        internet.Install(g_nodes);
        dsrMain.Install(dsr, g_nodes);
    }

    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer interfaces = address.Assign(devices);

    OnOffHelper onoff("ns3::UdpSocketFactory", Address());
    onoff.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1.0]"));
    onoff.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0.0]"));
    for (int i = 0; i < kSinks; i++)
    {
        TypeId tid = TypeId::LookupByName("ns3::UdpSocketFactory");
        Ptr<Socket> sink = Socket::CreateSocket(g_nodes.Get(i), tid);
        sink->Bind(InetSocketAddress(interfaces.GetAddress(i), kPort));
        sink->SetRecvCallback(MakeCallback(&OnReceive));
        onoff.SetAttribute("Remote", AddressValue(InetSocketAddress(interfaces.GetAddress(i), kPort)));
        Ptr<UniformRandomVariable> var = CreateObject<UniformRandomVariable>();
        ApplicationContainer app = onoff.Install(g_nodes.Get(i + kSinks));
        double start = var->GetValue(kStart, kStart + 1.0);
        if (!moves.empty())
        {
            start = kStart + 0.1 * i;
        }
        app.Start(Seconds(start));
        g_offered += uint64_t(std::floor((total - start) / 0.25));
        app.Stop(Seconds(total));
    }

    Config::ConnectWithoutContext("/NodeList/*/ApplicationList/*/$ns3::OnOffApplication/Tx",
                                  MakeCallback(&OnTx));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacTx",
                                  MakeCallback(&OnMacTx));
    Simulator::Schedule(Seconds(kStart), &SampleTopology);
    g_trackFates = !fates.empty();
    if (!counters.empty() || g_trackFates)
    {
        Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&OnIpDrop));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::ArpL3Protocol/Drop", MakeCallback(&OnArpDrop));
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                                      MakeCallback(&OnMacDropped));
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacTxDrop",
                                      MakeBoundCallback(&OnAnyDrop, &g_c.macTxDrop));
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyRxDrop",
                                      MakeCallback(&OnPhyRxDrop));
        if (protocol == "OLSR")
        {
            Config::ConnectWithoutContext("/NodeList/*/$ns3::olsr::RoutingProtocol/Tx", MakeCallback(&OnOlsrTx));
        }
        if (protocol == "DSR")
        {
            Config::ConnectWithoutContext("/NodeList/*/$ns3::dsr::DsrRouting/Drop",
                                          MakeBoundCallback(&OnAnyDrop, &g_c.dsrDrop));
        }
    }
    if (g_trackFates)
    {
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacRx",
                                      MakeBoundCallback(&OnMark, F_MAC_RX));
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacTxDrop",
                                      MakeBoundCallback(&OnMark, F_MAC_OTHER));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::ArpL3Protocol/CacheList/*/Drop",
                                      MakeBoundCallback(&OnMark, F_ARP_GIVEUP));
        if (protocol == "DSR")
        {
            Config::ConnectWithoutContext("/NodeList/*/$ns3::dsr::DsrRouting/Drop",
                                          MakeBoundCallback(&OnMark, F_DSR));
        }
    }

    Simulator::Stop(Seconds(total));
    Simulator::Run();

    double window = total - kStart;
    if (header)
    {
        std::printf("protocol,max_speed,pause,run,offered,sent,received,pdr,goodput_kbps,delay_ms,routing_tx,"
                    "routing_bytes,data_tx,nrl,mean_degree,connected\n");
    }
    std::printf("%s,%g,%g,%u,%lu,%lu,%lu,",
                protocol.c_str(),
                maxSpeed,
                pause,
                RngSeedManager::GetRun() > 0xffffffffu ? 0u : (unsigned)RngSeedManager::GetRun(),
                (unsigned long)g_offered,
                (unsigned long)g_sent,
                (unsigned long)g_received);
    if (g_offered > 0)
    {
        std::printf("%.5f,", double(g_received) / double(g_offered));
    }
    else
    {
        std::printf(",");
    }
    std::printf("%.4f,", g_rxBytes * 8.0 / window / 1e3);
    if (g_received > 0)
    {
        std::printf("%.3f,", g_delaySum / g_received * 1e3);
    }
    else
    {
        std::printf(",");
    }
    std::printf("%lu,%lu,%lu,", (unsigned long)g_routingTx, (unsigned long)g_routingBytes, (unsigned long)g_dataTx);
    if (g_received > 0)
    {
        std::printf("%.4f,", double(g_routingTx) / double(g_received));
    }
    else
    {
        std::printf(",");
    }
    std::printf("%.3f,%.4f\n",
                g_degreeSum / std::max<uint64_t>(g_degreeSamples, 1),
                double(g_connected) / std::max<uint64_t>(g_connSamples, 1));
    if (!counters.empty())
    {
        FILE* f = std::fopen(counters.c_str(), "a");
        if (f)
        {
            std::fprintf(f,
                         "%s,%g,%g,%u,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,"
                         "%lu,%lu,%lu\n",
                         protocol.c_str(),
                         maxSpeed,
                         pause,
                         (unsigned)RngSeedManager::GetRun(),
                         (unsigned long)g_offered,
                         (unsigned long)(g_offered - std::min(g_sent, g_offered)),
                         (unsigned long)g_received,
                         (unsigned long)g_c.rreqOrig,
                         (unsigned long)g_c.rreqFwd,
                         (unsigned long)g_c.rrep,
                         (unsigned long)g_c.hello,
                         (unsigned long)g_c.rerr,
                         (unsigned long)g_c.olsrPackets,
                         (unsigned long)g_c.olsrHello,
                         (unsigned long)g_c.olsrTc,
                         (unsigned long)g_c.olsrOther,
                         (unsigned long)g_c.ipTtl,
                         (unsigned long)g_c.ipNoRoute,
                         (unsigned long)g_c.ipRouteError,
                         (unsigned long)g_c.ipOther,
                         (unsigned long)g_c.arpDrop,
                         (unsigned long)g_c.macRetry,
                         (unsigned long)g_c.macRetryCtl,
                         (unsigned long)g_c.macLifetime,
                         (unsigned long)g_c.macEnqueue,
                         (unsigned long)g_c.macTxDrop,
                         (unsigned long)g_c.dsrDrop,
                         (unsigned long)g_c.phyRxDrop);
            std::fclose(f);
        }
    }
    if (g_trackFates)
    {
        uint64_t n[F_COUNT] = {0};
        uint64_t noneOld = 0;
        for (const auto& kv : g_fates)
        {
            n[kv.second.last]++;
            noneOld += kv.second.last == F_NONE && kv.second.sentAt < total - 30.0;
        }
        FILE* f = std::fopen(fates.c_str(), "a");
        if (f)
        {
            std::fprintf(f,
                         "%s,%g,%g,%u,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu\n",
                         protocol.c_str(),
                         maxSpeed,
                         pause,
                         (unsigned)RngSeedManager::GetRun(),
                         (unsigned long)g_offered,
                         (unsigned long)g_fates.size(),
                         (unsigned long)n[F_DELIVERED],
                         (unsigned long)noneOld,
                         (unsigned long)(n[F_NONE] - noneOld),
                         (unsigned long)n[F_MAC_TX],
                         (unsigned long)n[F_MAC_RX],
                         (unsigned long)n[F_MAC_RETRY],
                         (unsigned long)n[F_MAC_OTHER],
                         (unsigned long)n[F_ARP],
                         (unsigned long)n[F_ARP_GIVEUP],
                         (unsigned long)n[F_IP],
                         (unsigned long)n[F_DSR]);
            std::fclose(f);
        }
    }
    // ns-3.37's DSR disconnects the obsolete WifiMac "TxErrHeader" trace
    // source when it is disposed, which aborts: the results are out, so
    // end here without Simulator::Destroy().
    std::fflush(stdout);
    std::_Exit(0);
}
