package tpcc

import "sync/atomic"

// deckCards is tpcc-mysql's seq_init(10,10,1,1,1): one shuffled deck of 23
// cards dealt to every connection in turn.
var deckCards = [...]int{
	NewOrder, NewOrder, NewOrder, NewOrder, NewOrder, NewOrder, NewOrder, NewOrder, NewOrder, NewOrder,
	Payment, Payment, Payment, Payment, Payment, Payment, Payment, Payment, Payment, Payment,
	OrderStatus, Delivery, StockLevel,
}

const deckSize = len(deckCards)

// deck is the deck shared by a run's clients. tpcc-mysql deals it under a
// global mutex and reshuffles when it is empty; here the k-th card dealt is
// card k%23 of shuffle k/23, each shuffle drawn from its own random stream,
// so every 23 consecutive deals across all clients hold exactly
// 10/10/1/1/1 and dealing costs one atomic add — no lock shared by clients.
type deck struct {
	next atomic.Uint64
	seed uint64
}

// hand is one client's copy of the shuffle it last dealt from.
type hand struct {
	round uint64 // shuffle number + 1; 0 = none yet
	cards [deckSize]int
}

func (d *deck) deal(h *hand) int {
	k := d.next.Add(1) - 1
	round := k / uint64(deckSize)
	if h.round != round+1 {
		h.cards = deckCards
		g := newRNG(d.seed, 1<<63|round)
		for i := deckSize - 1; i > 0; i-- {
			j := g.r.IntN(i + 1)
			h.cards[i], h.cards[j] = h.cards[j], h.cards[i]
		}
		h.round = round + 1
	}
	return h.cards[k%uint64(deckSize)]
}
