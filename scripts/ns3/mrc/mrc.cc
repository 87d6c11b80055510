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

void
OnTx(Ptr<const Packet>)
{
    g_sent++;
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
    g_range = 100.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("protocol", "AODV, OLSR, DSDV or DSR", protocol);
    cmd.AddValue("speed", "maximum node speed (m/s)", maxSpeed);
    cmd.AddValue("pause", "pause time (s)", pause);
    cmd.AddValue("txp", "transmit power (dBm)", txp);
    cmd.AddValue("time", "run length (s)", total);
    cmd.AddValue("range", "unit-disk range for degree and connectivity (m)", g_range);
    cmd.AddValue("header", "print the CSV header first", header);
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
        app.Start(Seconds(start));
        g_offered += uint64_t(std::floor((total - start) / 0.25));
        app.Stop(Seconds(total));
    }

    Config::ConnectWithoutContext("/NodeList/*/ApplicationList/*/$ns3::OnOffApplication/Tx",
                                  MakeCallback(&OnTx));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/MacTx",
                                  MakeCallback(&OnMacTx));
    Simulator::Schedule(Seconds(kStart), &SampleTopology);

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
    // ns-3.37's DSR disconnects the obsolete WifiMac "TxErrHeader" trace
    // source when it is disposed, which aborts: the results are out, so
    // end here without Simulator::Destroy().
    std::fflush(stdout);
    std::_Exit(0);
}
