//! AODV route discovery (RFC 3561 §6.3-§6.7): expanding-ring RREQs and
//! their timers, answering and forwarding RREQs, RREPs and HELLOs.

use super::*;

impl Aodv {
    /// `route_ref`'s packets without an active route, and broadcasts: out
    /// of line, so that the routed path (one look-up, the refreshes, the
    /// copy into the action vector) saves few registers and sets up no
    /// large frame (docs/performance.md, "Session 22 (branch s22up)"; here
    /// since session 24: `mod.rs` was at the 800-line limit).
    #[inline(never)]
    pub(super) fn route_unrouted(&mut self, ctx: &mut RouteCtx, pkt: &Packet, origin: Origin) {
        if pkt.dst == BROADCAST {
            return ctx.transmit(Packet { next_hop: BROADCAST, ..*pkt });
        }
        let pkt = *pkt;
        match origin {
            Origin::Local => {
                let dst = pkt.dst;
                self.buffer_packet(ctx, pkt);
                if !self.discoveries.contains_key(&dst) {
                    self.start_discovery(ctx, dst);
                } else {
                    self.ns2_packet_buffered(ctx, dst, true);
                }
            }
            Origin::Forward => {
                if self.table.get(pkt.dst).is_some_and(|r| r.state == RouteState::Repairing) {
                    let dst = pkt.dst;
                    self.buffer_packet(ctx, pkt);
                    // ns2_quirks: a repair outlives its discovery (retries
                    // ran out, hold-off over); ns-2 asks again for waiting
                    // packets (`rt_purge`).
                    if self.cfg.ns2_quirks && !self.discoveries.contains_key(&dst) {
                        self.start_discovery(ctx, dst);
                    } else {
                        self.ns2_packet_buffered(ctx, dst, false);
                    }
                    return;
                }
                // §6.11 case (ii): no route for a packet in transit.
                self.stats.event("no_route_for_forward");
                let (seq, mut recipients) = match self.table.get(pkt.dst) {
                    Some(r) => (r.seq, self.table.precursors(pkt.dst).to_vec()),
                    None => (0, Vec::new()),
                };
                if !recipients.contains(&pkt.prev_hop) {
                    recipients.push(pkt.prev_hop);
                }
                match LinkFailureNotice::for_packet(&pkt) {
                    Some(n) => {
                        self.stats.event("elfn_notices_sent");
                        self.send_rerr_elfn(ctx, (pkt.dst, seq), &recipients, n);
                    }
                    None => self.send_rerr(ctx, &[(pkt.dst, seq)], &recipients, false),
                }
                ctx.drop(pkt, DropReason::Nrte);
            }
        }
    }

    pub(super) fn start_discovery(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        let c = &self.cfg;
        // The last known hop count, if any, seeds the ring (§6.4).
        let ttl = match self.table.get(dst) {
            Some(r) => (r.hops as u32 + c.ttl_increment as u32).min(c.net_diameter as u32) as u8,
            None => c.ttl_start,
        }
        .max(c.ttl_start)
        .min(c.net_diameter);
        self.stats.event("route_discoveries");
        self.discoveries.insert(dst, Discovery::new(ttl, None));
        self.send_rreq(ctx, dst);
    }

    pub(super) fn arm_discovery_timer(&mut self, ctx: &mut RouteCtx, dst: NodeId, at: Time) {
        self.next_gen = self.next_gen.wrapping_add(1);
        let gen = self.next_gen & GEN_MASK as u32;
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.gen = gen;
        }
        ctx.timer(at, RouteTimer::with(T_DISCOVERY, dst, gen));
    }

    /// Originates the RREQ of the discovery for `dst` (rate limit permitting)
    /// and waits for a RREP.
    pub(super) fn send_rreq(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        let now = ctx.now;
        if !Self::within_rate(&mut self.rreq_times, self.cfg.rreq_ratelimit, now) {
            self.stats.event("rreq_rate_limited");
            let at = *self.rreq_times.front().unwrap() + ONE_SECOND;
            if let Some(d) = self.discoveries.get_mut(&dst) {
                d.deferred = true;
            }
            return self.arm_discovery_timer(ctx, dst, at);
        }
        if !self.discoveries.contains_key(&dst) {
            return;
        }
        if self.ns2_timing() {
            // ns-2.35 picks every request's TTL afresh (`sendRequest`).
            let ttl = self.ns2_rreq_ttl(dst);
            self.ns2_set_last_ttl(dst, ttl);
            self.discoveries.get_mut(&dst).unwrap().ttl = ttl;
        }
        let Some(d) = self.discoveries.get(&dst) else { return };
        // ns2_quirks: a repair goes on with a discovery's timing.
        let (ttl, repair, at_max) = (d.ttl, d.repair.is_some() && !self.cfg.ns2_quirks, d.at_max);
        self.seq = self.seq.wrapping_add(1);
        self.rreq_id = self.rreq_id.wrapping_add(1);
        self.cache.seen_before(self.me, self.rreq_id, now);
        let (dst_seq, known) = match self.table.get(dst) {
            Some(r) if r.valid_seq => (r.seq, true),
            _ => (0, false),
        };
        let rreq = Rreq {
            gratuitous: self.cfg.gratuitous_rrep,
            dest_only: self.cfg.dest_only,
            unknown_seq: !known,
            hop_count: 0,
            id: self.rreq_id,
            dst,
            dst_seq,
            orig: self.me,
            orig_seq: self.seq,
        };
        let p = self.new_msg(ctx, BROADCAST, AodvMsg::Rreq(rreq), ttl);
        // Originated requests are jittered too (RFC 5148 §5: all such
        // control traffic): two sources that start a discovery at the same
        // instant would otherwise collide on every retry (issue 24). ns-2.35
        // sends its own RREQ without delay but its MAC draws a random defer
        // even on an idle medium, which separates them the same way.
        self.emit_jittered(ctx, p);
        let wide = !repair && ttl >= self.cfg.net_diameter;
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.at_max += wide as u32;
            d.sent_at = now;
        }
        let wait = match (self.ns2_timing(), wide) {
            // ns-2.35 `sendRequest`: × the network-wide RREQs so far, this one included.
            (true, _) => self.ns2_rreq_wait(dst, ttl, if wide { at_max + 1 } else { at_max }),
            (false, true) => self.cfg.backoff_wait(at_max),
            (false, false) => self.cfg.ring_traversal_time(ttl),
        };
        self.arm_discovery_timer(ctx, dst, now + wait);
    }

    pub(super) fn discovery_timer(&mut self, ctx: &mut RouteCtx, dst: NodeId, gen: u32) {
        let now = ctx.now;
        let Some(d) = self.discoveries.get_mut(&dst) else { return };
        if d.gen != gen {
            return; // superseded
        }
        if d.deferred {
            d.deferred = false;
            return self.send_rreq(ctx, dst);
        }
        if d.holdoff {
            return self.ns2_holdoff_over(ctx, dst);
        }
        if d.repair.is_some() {
            if self.table.active(dst, now).is_some() {
                self.discoveries.remove(&dst);
                return self.flush_buffer(ctx);
            }
            if !self.cfg.ns2_quirks {
                return self.repair_failed(ctx, dst);
            }
        }
        if self.table.active(dst, now).is_some() {
            // Found meanwhile (e.g. a reverse route from the destination's own RREQ).
            self.discoveries.remove(&dst);
            return self.flush_buffer(ctx);
        }
        // ns-2 timing: the wait is over, but the RREQ waits for a packet or a poll.
        if self.ns2_timing() && !self.ns2_may_ask(ctx, dst) {
            return;
        }
        let Some(d) = self.discoveries.get_mut(&dst) else { return };
        if d.ttl >= self.cfg.net_diameter {
            if d.at_max > self.cfg.rreq_retries {
                if self.cfg.ns2_quirks {
                    return self.ns2_holdoff(ctx, dst);
                }
                self.discoveries.remove(&dst);
                self.stats.event("route_discovery_failures");
                return self.drop_buffered_for(ctx, dst);
            }
        } else {
            d.ttl = self.cfg.next_ring_ttl(d.ttl);
        }
        self.send_rreq(ctx, dst);
    }

    // ---- receiving ---------------------------------------------------------

    pub(super) fn recv_rreq(&mut self, ctx: &mut RouteCtx, pkt: &Packet, q: Rreq) {
        let now = ctx.now;
        let from = pkt.prev_hop;
        if q.orig == self.me {
            return; // our own RREQ, rebroadcast by a neighbour
        }
        self.table.neighbour(from, now + self.cfg.active_route_timeout, now);
        if self.cache.seen_before(q.orig, q.id, now) {
            self.rreq_duplicates += 1;
            return;
        }
        // Reverse route to the originator (§6.5).
        let hops = q.hop_count.saturating_add(1);
        let nt = self.cfg.node_traversal_time;
        let min_life = (now + self.cfg.net_traversal_time() * 2).saturating_sub(nt * (2 * hops as u64));
        let updated = self.table.offer(
            Offer { dst: q.orig, seq: q.orig_seq, hops, next_hop: from, lifetime: min_life, keep_longer: true },
            now,
        );
        if updated && self.discoveries.contains_key(&q.orig) {
            self.ns2_set_last_ttl(q.orig, hops);
        }
        self.flush_buffer(ctx);
        let Some(back) = self.table.active(q.orig, now).map(|r| r.next_hop) else { return };

        if q.dst == self.me || self.proxied.contains(&q.dst) {
            // §6.6.1: the destination replies with a fresh sequence number
            // (a gateway replies for its wired-only hosts with its own).
            if self.cfg.ns2_quirks {
                self.ns2_seq_for_reply(&q);
            } else if !q.unknown_seq && seq_newer(q.dst_seq, self.seq) {
                self.seq = q.dst_seq;
            }
            let lifetime_ms = self.cfg.my_route_timeout().as_ns() / 1_000_000;
            let rrep =
                Rrep { hop_count: 0, dst: q.dst, dst_seq: self.seq, orig: q.orig, lifetime_ms: lifetime_ms as u32 };
            let p = self.new_msg(ctx, back, AodvMsg::Rrep(rrep), Packet::DEFAULT_TTL);
            self.stats.event("rrep_by_destination");
            return self.emit(ctx, p);
        }

        // §6.6.2: an intermediate node with a fresh enough route replies.
        if !q.dest_only {
            if let Some(r) = self.table.active(q.dst, now) {
                let fresh = r.valid_seq && (q.unknown_seq || seq_at_least(r.seq, q.dst_seq));
                // Never send the originator's traffic back where it came from.
                if fresh && r.next_hop != from {
                    let (fwd_hop, fwd_seq, fwd_hops, fwd_life) = (r.next_hop, r.seq, r.hops, r.lifetime);
                    let ms = |t: Time| (t.saturating_sub(now).as_ns() / 1_000_000).min(u32::MAX as u64) as u32;
                    let rrep = Rrep {
                        hop_count: fwd_hops,
                        dst: q.dst,
                        dst_seq: fwd_seq,
                        orig: q.orig,
                        lifetime_ms: ms(fwd_life),
                    };
                    self.table.add_precursor(q.dst, back);
                    self.table.add_precursor(q.orig, fwd_hop);
                    let p = self.new_msg(ctx, back, AodvMsg::Rrep(rrep), Packet::DEFAULT_TTL);
                    self.stats.event("rrep_by_intermediate");
                    self.emit(ctx, p);
                    if q.gratuitous {
                        // §6.6.3: tell the destination the way to the originator.
                        if let Some(rev) = self.table.active(q.orig, now) {
                            let g = Rrep {
                                hop_count: rev.hops,
                                dst: q.orig,
                                dst_seq: q.orig_seq,
                                orig: q.dst,
                                lifetime_ms: ms(rev.lifetime),
                            };
                            let p = self.new_msg(ctx, fwd_hop, AodvMsg::Rrep(g), Packet::DEFAULT_TTL);
                            self.stats.event("gratuitous_rreps");
                            self.emit(ctx, p);
                        }
                    }
                    return;
                }
            }
        }

        // Forward (§6.5): one hop more, the freshest known destination seqno.
        if pkt.ttl > 1 {
            let mut f = q;
            f.hop_count = hops;
            if let Some(r) = self.table.get(q.dst) {
                if r.valid_seq && (f.unknown_seq || seq_newer(r.seq, f.dst_seq)) {
                    f.dst_seq = r.seq;
                    f.unknown_seq = false;
                }
            }
            let p = self.relay(pkt, BROADCAST, AodvMsg::Rreq(f), pkt.ttl - 1);
            self.emit_jittered(ctx, p);
        }
    }

    pub(super) fn recv_rrep(&mut self, ctx: &mut RouteCtx, pkt: &Packet, r: Rrep) {
        let now = ctx.now;
        let from = pkt.prev_hop;
        self.table.neighbour(from, now + self.cfg.active_route_timeout, now);
        if r.dst == self.me {
            return;
        }
        // Forward route to the destination (§6.7).
        let hops = r.hop_count.saturating_add(1);
        if self.ns2_rejects_rrep(&r, hops) {
            return;
        }
        let lifetime = now + Time::from_ms(r.lifetime_ms as u64);
        let updated = self
            .table
            .offer(Offer { dst: r.dst, seq: r.dst_seq, hops, next_hop: from, lifetime, keep_longer: false }, now);
        if updated {
            self.ns2_set_last_ttl(r.dst, hops);
        }
        if r.orig == self.me {
            if updated {
                if let Some(d) = self.discoveries.remove(&r.dst) {
                    self.ns2_record_latency(r.dst, d.sent_at, now, hops);
                    match d.repair {
                        Some(old_hops) => {
                            self.stats.event("local_repairs_succeeded");
                            if hops > old_hops && !self.cfg.ns2_quirks {
                                // §6.12: the repaired route is longer; upstream may want to know.
                                let (seq, pre) = {
                                    let e = self.table.get(r.dst).unwrap();
                                    (e.seq, self.table.precursors(r.dst).to_vec())
                                };
                                self.send_rerr(ctx, &[(r.dst, seq)], &pre, true);
                            }
                        }
                        None => self.stats.event("route_discoveries_succeeded"),
                    }
                }
                self.flush_buffer(ctx);
            }
            return;
        }
        if !updated {
            self.stats.event("rrep_not_forwarded");
            return;
        }
        let Some(back) = self.table.active(r.orig, now).map(|e| e.next_hop) else {
            self.stats.event("rrep_no_reverse_route");
            return;
        };
        self.table.add_precursor(r.dst, back);
        self.table.add_precursor(from, back);
        self.table.refresh(r.orig, now + self.cfg.active_route_timeout, now);
        let fwd = Rrep { hop_count: hops, ..r };
        let p = self.relay(pkt, back, AodvMsg::Rrep(fwd), Packet::DEFAULT_TTL);
        self.emit(ctx, p);
        self.flush_buffer(ctx);
    }

    pub(super) fn recv_hello(&mut self, ctx: &mut RouteCtx, r: Rrep) {
        let now = ctx.now;
        if r.dst == self.me {
            return;
        }
        self.table.neighbour(r.dst, now + self.cfg.hello_lifetime(), now);
        self.table.learn_seq(r.dst, r.dst_seq);
        self.flush_buffer(ctx);
    }
}
