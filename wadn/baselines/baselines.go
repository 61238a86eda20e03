// Package baselines holds the comparison methods of the WADN paper's tables:
// Source (Source+Tar with limited labels), DANN, MDAN, DARN, MDMN, M3SDA,
// PADA, MME and RLUS, each in a file of its own with its settings type, as
// the code the paper's baseline numbers come from (the DARN authors') runs
// them where the papers leave a choice.
//
// Every baseline trains the run's network (package nets) with the run's
// optimiser and batches (package method); each adds its own heads, drawn
// from a generator of its own so that the model's initial weights are the
// same for every method at a seed. All lists them, in the order of the
// paper's tables; adding a baseline is a file and a line there.
package baselines

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/method"
)

// All lists the baselines.
var All = method.Registry{
	Source,
	DANN,
	MDAN,
	MDMN,
	M3SDA,
	DARN,
	PADA,
	MME,
	RLUS,
}

// Scenario lists.
var (
	everyScenario = []data.Scenario{data.UDA, data.Limited, data.Partial}
	udaAndLimited = []data.Scenario{data.UDA, data.Limited}
)
