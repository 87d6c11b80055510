// TCP over a static chain in ns-3.37 with ns-3's own defaults, the
// reference for manetlab's `profile = "ns3"` (docs/profiles.md).
//
// Written for manetlab (issue 24); uses only ns-3's public helper API.
// Build and run: scripts/ns3/run.sh (g++ against libns3-dev).
//
// What is set explicitly (everything else is ns-3's default):
//   802.11b (WIFI_STANDARD_80211b), ConstantRateWifiManager DSSS 2 Mbit/s
//   for data and control, ad hoc MAC, YansWifiPhy/YansWifiChannel with the
//   helpers' defaults (LogDistance exponent 3 at 46.6777 dB/1 m, 16.0206 dBm,
//   ThresholdPreambleDetectionModel -82 dBm / 4 dB, RxSensitivity -101 dBm,
//   CcaEdThreshold -62 dBm, noise figure 7 dB, RTS off), nodes `spacing`
//   apart on a line, static host routes along the chain, one BulkSend TCP
//   flow 0 -> hops from 1 s, PacketSink at the last node.
//   TCP: ns-3.37 defaults (TcpCubic with PRR recovery, 536 B segments, DelAckCount 2, MinRto 1 s,
//   128 KiB buffers) except SACK off (manetlab does not model SACK).
// Prints one line: RESULT hops=H seed=S spacing=D goodput_kbps=G rx_bytes=B
// with goodput counted from `from` to `stop` seconds.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <iostream>
#include <map>
#include <sstream>

using namespace ns3;

static uint64_t g_bytes = 0;
static double g_from = 10.0;

// Counters (--counters=1): per node, keyed by name, printed as
// "COUNT node=N name=value ..." lines after the RESULT line.
static std::map<uint32_t, std::map<std::string, uint64_t>> g_count;

static uint32_t
NodeOf(const std::string& ctx)
{
    // "/NodeList/N/..."
    return std::stoul(ctx.substr(10, ctx.find('/', 10) - 10));
}

static void
Count(const std::string& ctx, const std::string& name)
{
    if (Simulator::Now().GetSeconds() >= g_from)
    {
        g_count[NodeOf(ctx)][name]++;
    }
}

static void
OnPhyRxDrop(std::string ctx, Ptr<const Packet>, WifiPhyRxfailureReason r)
{
    std::ostringstream os;
    os << "phy_rx_drop_" << r;
    Count(ctx, os.str());
}

static void
OnPhyTxBegin(std::string ctx, Ptr<const Packet>, double)
{
    Count(ctx, "phy_tx");
}

static void
OnPhyRxEnd(std::string ctx, Ptr<const Packet>)
{
    Count(ctx, "phy_rx_ok");
}

// Receptions whose payload ended (PHY state RxOk / RxError), by frame
// type: "ack" (MAC ACK) or "data" (data frames, addressed to this node
// or not), to compare with manetlab's radio_decoded / radio_collisions.
static void
CountRxResult(const std::string& ctx, Ptr<const Packet> p, const char* result)
{
    WifiMacHeader h;
    p->PeekHeader(h);
    std::string kind = h.IsAck() ? "ack" : (h.IsData() ? "data" : "other");
    Count(ctx, std::string("phy_rx_") + result + "_" + kind);
}

static void
OnStateRxOk(std::string ctx, Ptr<const Packet> p, double, WifiMode, WifiPreamble)
{
    CountRxResult(ctx, p, "ok");
}

static void
OnStateRxError(std::string ctx, Ptr<const Packet> p, double)
{
    CountRxResult(ctx, p, "error");
}

static void
OnPhyRxPayloadBegin(std::string ctx, WifiTxVector, Time)
{
    Count(ctx, "phy_rx_payload_begin");
}

static void
OnMacTxDrop(std::string ctx, Ptr<const Packet>)
{
    Count(ctx, "mac_tx_drop");
}

static void
OnFinalDataFailed(std::string ctx, Mac48Address)
{
    Count(ctx, "mac_retry_limit_data");
}

static void
OnDataFailed(std::string ctx, Mac48Address)
{
    Count(ctx, "mac_ack_timeout");
}

// Transmissions per MPDU (packet uid), to see how many attempts a frame
// had when it was dropped: WifiRemoteStationManager's retry counters
// (m_ssrc[ac]) are per station and access category, reset only by a
// success or a retry-limit drop, so a frame whose predecessor expired
// between two retries inherits the predecessor's count.
static std::map<uint64_t, uint32_t> g_attempts;

static void
OnPhyTxPsdu(std::string, WifiConstPsduMap psdus, WifiTxVector, double)
{
    for (auto& [sta, psdu] : psdus)
    {
        for (auto& mpdu : *psdu)
        {
            if (mpdu->GetHeader().IsData())
            {
                g_attempts[mpdu->GetPacket()->GetUid()]++;
            }
        }
    }
}

static void
OnQueueExpired(std::string ctx, Ptr<const WifiMpdu> mpdu)
{
    Count(ctx, "wifi_queue_expired");
    if (mpdu->GetHeader().IsRetry())
    {
        // expired while the MAC was retrying it (in flight)
        Count(ctx, "wifi_queue_expired_in_flight");
    }
}

static void
OnDroppedMpdu(std::string ctx, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    if (reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        auto it = g_attempts.find(mpdu->GetPacket()->GetUid());
        uint32_t n = it == g_attempts.end() ? 0 : it->second;
        Count(ctx, n < 7 ? "mac_retry_limit_after_fewer_than_7_tx" : "mac_retry_limit_after_7_tx");
    }
}

static void
OnQueueDrop(std::string ctx, Ptr<const WifiMpdu>)
{
    Count(ctx, "wifi_queue_drop");
}

static void
OnQdiscDrop(std::string ctx, Ptr<const QueueDiscItem>)
{
    Count(ctx, "qdisc_drop");
}

static void
OnCongState(std::string ctx, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n)
{
    if (n == TcpSocketState::CA_RECOVERY)
    {
        Count(ctx, "tcp_fast_recovery");
    }
    if (n == TcpSocketState::CA_LOSS)
    {
        Count(ctx, "tcp_rto");
    }
}

static uint32_t g_highTx = 0;

static void
OnTcpTx(std::string ctx, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (seq < g_highTx)
    {
        Count(ctx, "tcp_retransmitted_segments");
    }
    else
    {
        g_highTx = seq + p->GetSize();
        Count(ctx, "tcp_new_segments");
    }
}

static void
OnSinkTx(std::string ctx, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    Count(ctx, p->GetSize() == 0 ? "tcp_pure_acks_sent" : "tcp_data_sent");
}

static uint32_t g_cwnd = 0;
static std::string g_cwndSamples;

static void
OnCwnd(uint32_t, uint32_t n)
{
    g_cwnd = n;
}

static void
SampleCwnd()
{
    std::ostringstream os;
    os << " " << Simulator::Now().GetSeconds() << ":" << g_cwnd / 536;
    g_cwndSamples += os.str();
    Simulator::Schedule(Seconds(3.0), &SampleCwnd);
}

// Interface (WifiMacQueue) length per node, sampled every 100 ms from `from`.
static NodeContainer g_nodes;
static std::map<uint32_t, std::pair<double, uint32_t>> g_qlen; // node -> (sum, max)
static uint32_t g_qsamples = 0;

static void
SampleQueues()
{
    for (uint32_t i = 0; i < g_nodes.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(g_nodes.Get(i)->GetDevice(0));
        uint32_t n = dev->GetMac()->GetTxop()->GetWifiMacQueue()->GetNPackets();
        g_qlen[i].first += n;
        g_qlen[i].second = std::max(g_qlen[i].second, n);
    }
    ++g_qsamples;
    Simulator::Schedule(MilliSeconds(100), &SampleQueues);
}

// Time trace (--trace=1): every 50 ms from 1 s, one line
// "TRACE t cwnd ssthresh inflight state q0 q1 q2 exp0 rto fr" (segments of
// 536 B; q = WifiMacQueue packets per node; exp0, rto, fr cumulative).
static bool g_trace = false;
static uint32_t g_ssthresh = 0;
static uint32_t g_inflight = 0;
static int g_state = 0;
static uint64_t g_exp0 = 0;
static uint64_t g_rto = 0;
static uint64_t g_fr = 0;

static void
OnSsthresh(uint32_t, uint32_t n)
{
    g_ssthresh = n;
}

static void
OnInflight(uint32_t, uint32_t n)
{
    g_inflight = n;
}

static void
TraceLine()
{
    std::cout << "TRACE " << Simulator::Now().GetSeconds() << " " << g_cwnd / 536.0 << " "
              << std::min(g_ssthresh / 536u, 9999u) << " " << g_inflight / 536.0 << " " << g_state;
    for (uint32_t i = 0; i < g_nodes.GetN() && i < 3; ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(g_nodes.Get(i)->GetDevice(0));
        std::cout << " " << dev->GetMac()->GetTxop()->GetWifiMacQueue()->GetNPackets();
    }
    std::cout << " " << g_exp0 << " " << g_rto << " " << g_fr << std::endl;
    Simulator::Schedule(MilliSeconds(50), &TraceLine);
}

static void
OnTraceState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n)
{
    g_state = n;
    g_rto += n == TcpSocketState::CA_LOSS;
    g_fr += n == TcpSocketState::CA_RECOVERY;
}

static void
OnTraceExpired(std::string ctx, Ptr<const WifiMpdu>)
{
    g_exp0 += NodeOf(ctx) == 0;
}

static void
ConnectTrace()
{
    std::string s = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/";
    Config::ConnectWithoutContext(s + "CongestionWindow", MakeCallback(&OnCwnd));
    Config::ConnectWithoutContext(s + "SlowStartThreshold", MakeCallback(&OnSsthresh));
    Config::ConnectWithoutContext(s + "BytesInFlight", MakeCallback(&OnInflight));
    Config::ConnectWithoutContext(s + "CongState", MakeCallback(&OnTraceState));
    TraceLine();
}

static void
ConnectTcp()
{
    Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongestionWindow",
                                  MakeCallback(&OnCwnd));
    SampleCwnd();
    Config::Connect("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongState",
                    MakeCallback(&OnCongState));
    Config::Connect("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/Tx", MakeCallback(&OnTcpTx));
    std::ostringstream sink;
    sink << "/NodeList/" << g_nodes.GetN() - 1 << "/$ns3::TcpL4Protocol/SocketList/*/Tx";
    Config::Connect(sink.str(), MakeCallback(&OnSinkTx));
}

// Event log (--events=1): the sender's segments and ACKs, one line each,
// "EV t kind seq/ack [extra]" in segments of 536 B relative to the first
// data byte: "tx S" (new), "rtx S", "ack A" (cumulative ACK received),
// "state N" (TcpCongState), "rto R" (RTO value set, s), "cwnd C", "rtt R".
static bool g_events = false;
static uint32_t g_isn = 0;
static bool g_isnSet = false;
static uint32_t g_evHigh = 0;

static double
EvSeg(uint32_t s)
{
    return (s - g_isn) / 536.0;
}

static void
OnEvTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (!g_isnSet)
    {
        g_isn = seq;
        g_isnSet = true;
        g_evHigh = seq;
    }
    bool rtx = seq < g_evHigh;
    g_evHigh = std::max(g_evHigh, seq + p->GetSize());
    std::cout << "EV " << Simulator::Now().GetSeconds() << (rtx ? " rtx " : " tx ") << EvSeg(seq)
              << std::endl;
}

static void
OnEvRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (g_isnSet && (h.GetFlags() & TcpHeader::ACK))
    {
        std::cout << "EV " << Simulator::Now().GetSeconds() << " ack "
                  << EvSeg(h.GetAckNumber().GetValue()) << std::endl;
    }
}

static void
OnEvState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n)
{
    std::cout << "EV " << Simulator::Now().GetSeconds() << " state " << n << std::endl;
}

static void
OnEvRto(Time, Time n)
{
    std::cout << "EV " << Simulator::Now().GetSeconds() << " rto " << n.GetSeconds() << std::endl;
}

static void
OnEvCwnd(uint32_t, uint32_t n)
{
    std::cout << "EV " << Simulator::Now().GetSeconds() << " cwnd " << n / 536.0 << std::endl;
}

static void
OnEvRtt(Time, Time n)
{
    std::cout << "EV " << Simulator::Now().GetSeconds() << " rtt " << n.GetSeconds() << std::endl;
}

static void
ConnectEvents()
{
    std::string s = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/";
    Config::ConnectWithoutContext(s + "Tx", MakeCallback(&OnEvTx));
    Config::ConnectWithoutContext(s + "Rx", MakeCallback(&OnEvRx));
    Config::ConnectWithoutContext(s + "CongState", MakeCallback(&OnEvState));
    Config::ConnectWithoutContext(s + "RTO", MakeCallback(&OnEvRto));
    Config::ConnectWithoutContext(s + "CongestionWindow", MakeCallback(&OnEvCwnd));
    Config::ConnectWithoutContext(s + "RTT", MakeCallback(&OnEvRtt));
}

static void
OnRx(Ptr<const Packet> p, const Address&)
{
    if (Simulator::Now().GetSeconds() >= g_from)
    {
        g_bytes += p->GetSize();
    }
}

int
main(int argc, char* argv[])
{
    uint32_t hops = 4;
    uint32_t seed = 1;
    double spacing = 40.0;
    double stop = 100.0;
    bool sack = false;
    bool counters = false;
    CommandLine cmd;
    cmd.AddValue("trace", "print a TRACE line every 50 ms (cwnd, queues, ...)", g_trace);
    cmd.AddValue("hops", "hops of the chain", hops);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("spacing", "metres between neighbours", spacing);
    cmd.AddValue("stop", "end of the run, s", stop);
    cmd.AddValue("from", "goodput counted from, s", g_from);
    cmd.AddValue("sack", "TCP SACK (ns-3's default: on)", sack);
    cmd.AddValue("events", "print one EV line per sender segment, ACK, state/RTO/cwnd change", g_events);
    cmd.AddValue("counters", "print per-node PHY/MAC/queue/TCP counters", counters);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));

    NodeContainer nodes;
    nodes.Create(hops + 1);

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue("DsssRate2Mbps"),
                                 "ControlMode", StringValue("DsssRate2Mbps"));
    YansWifiPhyHelper phy;
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    phy.SetChannel(channel.Create());
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    for (uint32_t i = 0; i <= hops; ++i)
    {
        pos->Add(Vector(i * spacing, 0.0, 0.0));
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);

    // Host routes along the chain, both directions.
    Ipv4StaticRoutingHelper srh;
    for (uint32_t i = 0; i <= hops; ++i)
    {
        Ptr<Ipv4StaticRouting> rt = srh.GetStaticRouting(nodes.Get(i)->GetObject<Ipv4>());
        for (uint32_t j = 0; j <= hops; ++j)
        {
            if (j == i || j == i + 1 || j + 1 == i)
            {
                continue;
            }
            uint32_t next = j > i ? i + 1 : i - 1;
            rt->AddHostRouteTo(ifs.GetAddress(j), ifs.GetAddress(next), 1);
        }
    }

    uint16_t port = 9;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(nodes.Get(hops));
    sinkApp.Start(Seconds(0.0));
    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(hops), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    ApplicationContainer srcApp = src.Install(nodes.Get(0));
    srcApp.Start(Seconds(1.0));

    if (counters)
    {
        std::string dev = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/";
        Config::Connect(dev + "Phy/PhyRxDrop", MakeCallback(&OnPhyRxDrop));
        Config::Connect(dev + "Phy/PhyTxBegin", MakeCallback(&OnPhyTxBegin));
        Config::Connect(dev + "Phy/PhyRxEnd", MakeCallback(&OnPhyRxEnd));
        Config::Connect(dev + "Phy/State/RxOk", MakeCallback(&OnStateRxOk));
        Config::Connect(dev + "Phy/State/RxError", MakeCallback(&OnStateRxError));
        Config::Connect(dev + "Phy/PhyRxPayloadBegin", MakeCallback(&OnPhyRxPayloadBegin));
        Config::Connect(dev + "Mac/MacTxDrop", MakeCallback(&OnMacTxDrop));
        Config::Connect(dev + "RemoteStationManager/MacTxFinalDataFailed",
                        MakeCallback(&OnFinalDataFailed));
        Config::Connect(dev + "RemoteStationManager/MacTxDataFailed", MakeCallback(&OnDataFailed));
        Config::Connect(dev + "Mac/Txop/Queue/Expired", MakeCallback(&OnQueueExpired));
        Config::Connect(dev + "Phy/PhyTxPsduBegin", MakeCallback(&OnPhyTxPsdu));
        Config::Connect(dev + "Mac/DroppedMpdu", MakeCallback(&OnDroppedMpdu));
        Config::Connect(dev + "Mac/Txop/Queue/Drop", MakeCallback(&OnQueueDrop));
        Config::Connect("/NodeList/*/$ns3::TrafficControlLayer/RootQueueDiscList/*/Drop",
                        MakeCallback(&OnQdiscDrop));
        g_nodes = nodes;
        Simulator::Schedule(Seconds(1.5), &ConnectTcp);
        Simulator::Schedule(Seconds(g_from), &SampleQueues);
    }

    if (g_trace)
    {
        g_nodes = nodes;
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/Txop/Queue/Expired",
                        MakeCallback(&OnTraceExpired));
        Simulator::Schedule(Seconds(1.01), &ConnectTrace);
    }

    if (g_events)
    {
        // The sender's socket exists once BulkSend has started (1 s).
        Simulator::Schedule(Seconds(1.0) + NanoSeconds(1), &ConnectEvents);
    }

    Simulator::Stop(Seconds(stop));
    Simulator::Run();
    double kbps = g_bytes * 8.0 / (stop - g_from) / 1000.0;
    std::cout << "RESULT hops=" << hops << " seed=" << seed << " spacing=" << spacing
              << " goodput_kbps=" << kbps << " rx_bytes=" << g_bytes << std::endl;
    if (counters)
    {
        std::cout << "CWND segments at t:" << g_cwndSamples << std::endl;
        for (auto& [node, q] : g_qlen)
        {
            g_count[node]["queue_mean_x10"] = uint64_t(10.0 * q.first / std::max(g_qsamples, 1u));
            g_count[node]["queue_max"] = q.second;
        }
    }
    for (auto& [node, m] : g_count)
    {
        std::cout << "COUNT node=" << node;
        for (auto& [k, v] : m)
        {
            std::cout << " " << k << "=" << v;
        }
        std::cout << std::endl;
    }
    Simulator::Destroy();
    return 0;
}
