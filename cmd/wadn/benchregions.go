package main

import (
	"context"
	"fmt"
	"io"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// regionResult is the record of "wadn bench digits --step --regions": how
// profileSteps steps spent their time in the parallel regions
// (kernel.ProfileRegions) and outside them, a step on average.
type regionResult struct {
	Steps          int     `json:"steps"`
	StepMs         float64 `json:"step_ms"`          // wall time of a profiled step
	RegionsPerStep float64 `json:"regions_per_step"` // calls of Parallel that handed work to a worker
	InsideMs       float64 `json:"inside_ms"`        // the calling goroutine in them
	WaitingMs      float64 `json:"waiting_ms"`       // of InsideMs, waiting for the workers' parts
	OutsideMs      float64 `json:"outside_ms"`       // StepMs - InsideMs - CostMs: the calling goroutine alone
	CostMs         float64 `json:"cost_ms"`          // the profile recording the regions (kernel.RegionProfile.Cost)
	HandoffMs      float64 `json:"handoff_ms"`       // from handing parts over to their start, summed
	AsleepPerStep  float64 `json:"asleep_per_step"`  // parts handed to a worker that had to be woken
	// Sites splits the regions by the functions that called Parallel
	// (kernel.RegionSite), the most time inside first.
	Sites []regionSite `json:"sites"`
}

// regionSite is the part of a regionResult called from one site: the
// three innermost functions outside the kernel package (kernel.RegionSite),
// a step on average.
type regionSite struct {
	Name           string  `json:"name"`
	RegionsPerStep float64 `json:"regions_per_step"`
	InsideMs       float64 `json:"inside_ms"`
	WaitingMs      float64 `json:"waiting_ms"`
	OwnMs          float64 `json:"own_ms"`    // the calling goroutine's hand-over and parts
	OthersMs       float64 `json:"others_ms"` // the workers' parts, summed
}

// regionsOf runs profileSteps steps with the profile of the parallel
// regions on and returns its record, a step on average.
func regionsOf(ctx context.Context, step func() error) (*regionResult, error) {
	kernel.ProfileRegions(true)
	d, err := profiledSteps(ctx, step, func() { kernel.ProfileRegions(false) })
	if err != nil {
		return nil, err
	}
	wall := d.Seconds()
	r := kernel.ProfileRegions(false)
	per := func(s float64) float64 { return s * 1e3 / profileSteps }
	sites := make([]regionSite, len(r.Sites))
	for i, s := range r.Sites {
		sites[i] = regionSite{
			Name:           s.Name,
			RegionsPerStep: float64(s.Regions) / profileSteps,
			InsideMs:       per(s.Inside),
			WaitingMs:      per(s.Waiting),
			OwnMs:          per(s.Own),
			OthersMs:       per(s.Others),
		}
	}
	return &regionResult{
		Steps:          profileSteps,
		StepMs:         per(wall),
		RegionsPerStep: float64(r.Regions) / profileSteps,
		InsideMs:       per(r.Inside),
		WaitingMs:      per(r.Waiting),
		OutsideMs:      per(wall - r.Inside - r.Cost),
		CostMs:         per(r.Cost),
		HandoffMs:      per(r.Handoff),
		AsleepPerStep:  float64(r.Asleep) / profileSteps,
		Sites:          sites,
	}, nil
}

// writeRegions prints the record of the parallel regions of res.
func writeRegions(w io.Writer, res stepResult) {
	r := res.Regions
	fmt.Fprintf(w, "parallel regions, %d steps profiled at %.2f ms a step: %.1f regions a step; the calling goroutine spent %.2f ms a step in them, %.2f ms of it waiting for the other threads' parts, %.2f ms outside them, and %.2f ms recording them for this profile\n",
		r.Steps, r.StepMs, r.RegionsPerStep, r.InsideMs, r.WaitingMs, r.OutsideMs, r.CostMs)
	fmt.Fprintf(w, "handing parts to the workers: %.3f ms a step from hand-over to start, in all; %.2f parts a step to a worker that had to be woken\n",
		r.HandoffMs, r.AsleepPerStep)
	fmt.Fprintf(w, "by the functions that called them, ms a step (own: the calling goroutine's part; others: the workers' parts, summed):\n")
	fmt.Fprintf(w, "  %7s %8s %8s %8s %8s  %s\n", "regions", "inside", "waiting", "own", "others", "function")
	for _, s := range r.Sites {
		fmt.Fprintf(w, "  %7.1f %8.3f %8.3f %8.3f %8.3f  %s\n", s.RegionsPerStep, s.InsideMs, s.WaitingMs, s.OwnMs, s.OthersMs, s.Name)
	}
}
