package data

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Scenario is one of the three adaptation settings of the WADN paper.
type Scenario int

const (
	// UDA is unsupervised adaptation: the target training sample is unlabelled
	// (its labels are kept in the result for evaluation only).
	UDA Scenario = iota
	// Limited gives a small labelled target training set; the rest of the
	// target sample is the test set.
	Limited
	// Partial is unsupervised adaptation to a target that holds only a subset
	// of the source classes.
	Partial
)

// String returns "uda", "limited" or "partial".
func (s Scenario) String() string {
	switch s {
	case UDA:
		return "uda"
	case Limited:
		return "limited"
	case Partial:
		return "partial"
	}
	return fmt.Sprintf("Scenario(%d)", int(s))
}

// Protocol says how an adaptation task is drawn from the domains of a data
// set. The zero value of a count means "all samples".
type Protocol struct {
	Scenario Scenario
	// TrainSize is the number of samples drawn at random, without replacement,
	// from the train split of every domain (sources and target); 0 takes them
	// all, in file order.
	TrainSize int
	// TestSize is the number of target test samples drawn from the target's
	// test split; 0 takes them all. A target without a test split is tested on
	// its training sample (transductive), except in the Limited scenario.
	TestSize int
	// DropClasses and DropRate shift the source label distributions: in every
	// source, round(DropRate*n_c) of the n_c drawn samples of each listed class
	// c are removed at random. The target is never thinned.
	DropClasses []int
	DropRate    float64
	// LabelledFraction is, in the Limited scenario, the share of the target
	// training sample that is labelled and used for training; the rest is the
	// test set.
	LabelledFraction float64
	// KeepClasses is, in the Partial scenario, the number of classes kept in
	// the target, chosen at random from the seed.
	KeepClasses int
	// Stratified draws, in the Limited scenario, the labelled share of every
	// class of the target apart: round(LabelledFraction*n_c) of the n_c
	// rows of class c. Otherwise the labelled rows are drawn from all.
	Stratified bool
	// Pool draws the TrainSize samples of every domain from its train and
	// test splits together, and takes the target's test set (TestSize of
	// them, or all) and each source's held-out set from the samples not
	// drawn: the way the MDAN and DARN code splits the Amazon reviews.
	// Subsets are then From "pool", whose rows number the train split's
	// samples first and the test split's after them.
	Pool bool
}

// AmazonProtocol returns the paper's protocol for the Amazon reviews: 2000
// reviews drawn at random from each domain's train and test rows together
// (Pool, as the MDAN and DARN code the paper's figures come from splits
// them), half of the negative reviews (class 0) of every source dropped
// (about 1500 left), the target tested on the reviews not drawn, or for
// Limited on the 90% of its 2000 that are not the labelled 10%. With Pool
// false the 2000 are the domain's train rows (1000 of each class) and the
// target is tested on its test rows.
func AmazonProtocol(s Scenario) Protocol {
	return Protocol{Scenario: s, TrainSize: 2000, DropClasses: []int{0}, DropRate: 0.5, LabelledFraction: 0.1, Pool: true}
}

// DigitsProtocol returns the paper's protocol for the digit domains: 7000
// train and 2000 test images per domain, half of the images of digits 5-9 of
// every source dropped (about 5300 left); for Limited 10% of the target's 7000
// (700) are labelled and the other 90% are the test set.
func DigitsProtocol(s Scenario) Protocol {
	return Protocol{Scenario: s, TrainSize: 7000, TestSize: 2000, DropClasses: []int{5, 6, 7, 8, 9}, DropRate: 0.5, LabelledFraction: 0.1}
}

// OfficeHomeProtocol returns the Office-Home protocol: every sample of every
// domain, no source thinning, and for Partial 35 of the 65 classes kept in
// the target.
func OfficeHomeProtocol(s Scenario) Protocol {
	return Protocol{Scenario: s, LabelledFraction: 0.1, KeepClasses: 35}
}

// OfficeCaltechProtocol returns the usual protocol of Office-Caltech10:
// every row of every domain, no source thinning (the label distributions
// differ by nature), the target's rows both its unlabelled training sample
// and its test set; for Limited 10% of the target's rows, stratified by
// class, labelled and the other 90% the test set; for Partial 5 of the 10
// classes kept in the target.
func OfficeCaltechProtocol(s Scenario) Protocol {
	return Protocol{Scenario: s, LabelledFraction: 0.1, KeepClasses: 5, Stratified: true}
}

// Subset is a Split drawn from a domain, with the rows it was drawn from so
// that every selection can be audited against the files.
type Subset struct {
	Domain string // domain name
	From   string // "train", "test" or "pool" (Protocol.Pool): the split of the domain Rows index
	Rows   []int  // indices into that split, ascending, one per sample of Split
	Split
}

// Task is one drawn adaptation problem: the sources, the target's training
// sample and its test set.
type Task struct {
	Dataset  string
	Target   string
	Protocol Protocol
	Seed     uint64
	Sources  []Subset
	// SourceTest holds, for every source in order, samples of its test
	// split that training never sees (TestSize of them, or all), without
	// the label-shift drop: a held-out set on which a classifier's
	// class-conditional confusion can be measured without the optimism of
	// its training samples. Empty for a source without a test split.
	SourceTest []Subset
	// TargetTrain is the target training sample: unlabelled in UDA and Partial
	// (Y is kept for evaluation), the labelled set in Limited.
	TargetTrain Subset
	TargetTest  Subset
	// Classes lists the target's classes in the Partial scenario, ascending;
	// nil when the target keeps every class.
	Classes    []int
	NumClasses int
}

// streamOf derives the PCG stream of one random draw from its purpose and the
// domain it concerns, so that a draw does not depend on the order of the
// domains or on which other draws are made.
func streamOf(purpose, domain string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(domain))
	return h.Sum64()
}

func newRand(seed uint64, purpose, domain string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, streamOf(purpose, domain)))
}

// Build draws the task with the given target and sources from seed. The same
// seed and domains always give the same task. Every source draw depends only
// on the seed and that source's name.
func (p Protocol) Build(target Domain, sources []Domain, seed uint64) (*Task, error) {
	if len(sources) == 0 {
		return nil, fmt.Errorf("protocol: target %s: no source domains", target.Name)
	}
	k := target.Train.NumClasses
	for _, d := range append([]Domain{target}, sources...) {
		if d.Train.NumClasses != k {
			return nil, fmt.Errorf("protocol: domain %s has %d classes, target %s has %d", d.Name, d.Train.NumClasses, target.Name, k)
		}
		if d.Train.Len() == 0 {
			return nil, fmt.Errorf("protocol: domain %s has an empty train split", d.Name)
		}
	}
	if p.DropRate < 0 || p.DropRate > 1 || math.IsNaN(p.DropRate) {
		return nil, fmt.Errorf("protocol: drop rate %v outside [0, 1]", p.DropRate)
	}
	for _, c := range p.DropClasses {
		if c < 0 || c >= k {
			return nil, fmt.Errorf("protocol: drop class %d outside [0, %d)", c, k)
		}
	}
	t := &Task{Dataset: target.Dataset, Target: target.Name, Protocol: p, Seed: seed, NumClasses: k}
	from := "train"
	if p.Pool {
		from = "pool"
		var err error
		if target, err = pooled(target); err != nil {
			return nil, err
		}
		pool := make([]Domain, len(sources))
		for i, s := range sources {
			if pool[i], err = pooled(s); err != nil {
				return nil, err
			}
		}
		sources = pool
	}
	for _, s := range sources {
		drawn, err := drawRows(s.Name, from, s.Train.Len(), p.TrainSize, newRand(seed, "train", s.Name))
		if err != nil {
			return nil, err
		}
		rows := p.thin(drawn, s.Train.Y, newRand(seed, "drop", s.Name))
		t.Sources = append(t.Sources, subset(s, from, &s.Train, rows))
		var held []int
		switch {
		case p.Pool:
			held = drawFrom(complement(drawn, s.Train.Len()), p.TestSize, newRand(seed, "test", s.Name))
			t.SourceTest = append(t.SourceTest, subset(s, from, &s.Train, held))
			continue
		case s.Test.Len() > 0:
			if held, err = drawRows(s.Name, "test", s.Test.Len(), min(p.TestSize, s.Test.Len()), newRand(seed, "test", s.Name)); err != nil {
				return nil, err
			}
		}
		t.SourceTest = append(t.SourceTest, subset(s, "test", &s.Test, held))
	}

	trainRows, err := drawRows(target.Name, from, target.Train.Len(), p.TrainSize, newRand(seed, "train", target.Name))
	if err != nil {
		return nil, err
	}
	switch p.Scenario {
	case UDA, Partial:
		var testRows []int
		testFrom, testSplit := "test", &target.Test
		switch {
		case p.Pool:
			testFrom, testSplit = from, &target.Train
			testRows = drawFrom(complement(trainRows, target.Train.Len()), p.TestSize, newRand(seed, "test", target.Name))
		case target.Test.Len() == 0:
			testFrom, testSplit, testRows = "train", &target.Train, trainRows
		default:
			if testRows, err = drawRows(target.Name, "test", target.Test.Len(), p.TestSize, newRand(seed, "test", target.Name)); err != nil {
				return nil, err
			}
		}
		if p.Scenario == Partial {
			if p.KeepClasses <= 0 || p.KeepClasses > k {
				return nil, fmt.Errorf("protocol: partial target keeps %d classes, want 1..%d", p.KeepClasses, k)
			}
			t.Classes = newRand(seed, "classes", target.Name).Perm(k)[:p.KeepClasses]
			slices.Sort(t.Classes)
			trainRows = keepClasses(trainRows, target.Train.Y, t.Classes)
			testRows = keepClasses(testRows, testSplit.Y, t.Classes)
		}
		t.TargetTrain = subset(target, from, &target.Train, trainRows)
		t.TargetTest = subset(target, testFrom, testSplit, testRows)
	case Limited:
		f := p.LabelledFraction
		if !(f > 0 && f < 1) {
			return nil, fmt.Errorf("protocol: labelled fraction %v outside (0, 1)", f)
		}
		r := newRand(seed, "labelled", target.Name)
		var lab, test []int
		if p.Stratified {
			lab, test = stratified(trainRows, target.Train.Y, k, f, r)
		} else {
			perm := slices.Clone(trainRows)
			r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			n := int(math.Round(f * float64(len(perm))))
			lab, test = perm[:n], perm[n:]
		}
		slices.Sort(lab)
		slices.Sort(test)
		t.TargetTrain = subset(target, from, &target.Train, lab)
		t.TargetTest = subset(target, from, &target.Train, test)
	default:
		return nil, fmt.Errorf("protocol: unknown scenario %v", p.Scenario)
	}
	return t, nil
}

// BuildFor draws the task whose target is the domain named target and whose
// sources are all the other domains, in the order given.
func (p Protocol) BuildFor(domains []Domain, target string, seed uint64) (*Task, error) {
	var tgt *Domain
	var src []Domain
	for i := range domains {
		if domains[i].Name == target {
			tgt = &domains[i]
		} else {
			src = append(src, domains[i])
		}
	}
	if tgt == nil {
		names := make([]string, len(domains))
		for i, d := range domains {
			names[i] = d.Name
		}
		return nil, fmt.Errorf("protocol: no target domain %q among %v", target, names)
	}
	return p.Build(*tgt, src, seed)
}

// pooled returns d with its test split appended to its train split and no
// test split (Protocol.Pool).
func pooled(d Domain) (Domain, error) {
	all, err := concatSplits(&d.Train, &d.Test)
	if err != nil {
		return d, fmt.Errorf("protocol: pooling domain %s: train and test splits differ: %v", d.Name, err)
	}
	d.Train, d.Test = all, Split{NumClasses: all.NumClasses}
	return d, nil
}

// complement returns the integers of [0, n) not in rows (ascending).
func complement(rows []int, n int) []int {
	in := make([]bool, n)
	for _, r := range rows {
		in[r] = true
	}
	out := make([]int, 0, n-len(rows))
	for i, ok := range in {
		if !ok {
			out = append(out, i)
		}
	}
	return out
}

// drawFrom returns want of the ascending rows drawn without replacement, as
// drawRows draws indices; want 0 or more than len(rows) takes them all.
func drawFrom(rows []int, want int, r *rand.Rand) []int {
	if want <= 0 || want >= len(rows) {
		return rows
	}
	idx, _ := drawRows("", "", len(rows), want, r) // 0 < want < len(rows): no error
	for j, i := range idx {
		idx[j] = rows[i]
	}
	return idx
}

func subset(d Domain, from string, s *Split, rows []int) Subset {
	return Subset{Domain: d.Name, From: from, Rows: rows, Split: s.Select(rows)}
}

// drawRows returns want rows of n drawn without replacement, ascending; want
// 0 takes all n.
func drawRows(domain, split string, n, want int, r *rand.Rand) ([]int, error) {
	if want == 0 || want == n {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		return rows, nil
	}
	if want < 0 || want > n {
		return nil, fmt.Errorf("protocol: domain %s: %s split has %d samples, cannot draw %d", domain, split, n, want)
	}
	rows := r.Perm(n)[:want]
	slices.Sort(rows)
	return rows, nil
}

// thin removes, for every class in p.DropClasses, round(p.DropRate*n_c) of
// the n_c rows of that class at random, and returns the rest ascending.
func (p Protocol) thin(rows []int, y []int, r *rand.Rand) []int {
	if len(p.DropClasses) == 0 || p.DropRate == 0 {
		return rows
	}
	drop := make(map[int]bool)
	for _, c := range p.DropClasses {
		var of []int
		for _, i := range rows {
			if y[i] == c {
				of = append(of, i)
			}
		}
		r.Shuffle(len(of), func(i, j int) { of[i], of[j] = of[j], of[i] })
		n := int(math.Round(p.DropRate * float64(len(of))))
		for _, i := range of[:n] {
			drop[i] = true
		}
	}
	kept := make([]int, 0, len(rows)-len(drop))
	for _, i := range rows {
		if !drop[i] {
			kept = append(kept, i)
		}
	}
	return kept
}

// stratified splits rows into a labelled share, round(f*n_c) of the n_c
// rows of every class c drawn at random, and the rest, each in no order.
func stratified(rows, y []int, k int, f float64, r *rand.Rand) (lab, rest []int) {
	byClass := make([][]int, k)
	for _, i := range rows {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	for _, of := range byClass {
		r.Shuffle(len(of), func(i, j int) { of[i], of[j] = of[j], of[i] })
		n := int(math.Round(f * float64(len(of))))
		lab = append(lab, of[:n]...)
		rest = append(rest, of[n:]...)
	}
	return lab, rest
}

func keepClasses(rows []int, y []int, classes []int) []int {
	var kept []int
	for _, i := range rows {
		if _, ok := slices.BinarySearch(classes, y[i]); ok {
			kept = append(kept, i)
		}
	}
	return kept
}

// PooledSources returns a shallow copy of t whose sources are pooled into
// one source, their samples in order: the single source domain of the
// MDAN and DARN code's merged baselines (Source, DANN), from which each
// step draws one batch and whose size sets the epoch's length. The pooled
// source is named by the sources' names joined by "+"; its From is "pooled"
// and its Rows are nil (its samples come from several domains). SourceTest
// is pooled alike when every source has one, and left out otherwise.
func (t *Task) PooledSources() (*Task, error) {
	if len(t.Sources) == 0 {
		return nil, errors.New("data: a task without sources has nothing to pool")
	}
	out := *t
	pool := func(subs []Subset) (Subset, error) {
		names := make([]string, len(subs))
		split := Split{NumClasses: subs[0].NumClasses}
		for i := range subs {
			names[i] = subs[i].Domain
			var err error
			if split, err = concatSplits(&split, &subs[i].Split); err != nil {
				return Subset{}, fmt.Errorf("data: pooling source %s: %w", subs[i].Domain, err)
			}
		}
		return Subset{Domain: strings.Join(names, "+"), From: "pooled", Split: split}, nil
	}
	s, err := pool(t.Sources)
	if err != nil {
		return nil, err
	}
	out.Sources = []Subset{s}
	out.SourceTest = nil
	if len(t.SourceTest) == len(t.Sources) {
		st, err := pool(t.SourceTest)
		if err != nil {
			return nil, err
		}
		out.SourceTest = []Subset{st}
	}
	return &out, nil
}
