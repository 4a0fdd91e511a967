package duelogic

import "github.com/duelogic/duelogic/catalog"

// The framework catalog lives in package catalog, shared by the formats;
// these names are kept by alias, the way os.FileMode is fs.FileMode.
type (
	// Framework identifies an entry of a [Catalog]; see [catalog.Framework].
	Framework = catalog.Framework
	// FrameworkKind tells a philosophical framework from an engineering
	// perspective; see [catalog.FrameworkKind].
	FrameworkKind = catalog.FrameworkKind
	// FrameworkInfo is one catalog entry; see [catalog.FrameworkInfo].
	FrameworkInfo = catalog.FrameworkInfo
	// Catalog is a set of frameworks and perspectives; see [catalog.Catalog].
	Catalog = catalog.Catalog
)

// The philosophical frameworks of the Duelogic seed, in its order.
const (
	Utilitarian      = catalog.Utilitarian
	VirtueEthics     = catalog.VirtueEthics
	Deontological    = catalog.Deontological
	Pragmatic        = catalog.Pragmatic
	Libertarian      = catalog.Libertarian
	Communitarian    = catalog.Communitarian
	Cosmopolitan     = catalog.Cosmopolitan
	Precautionary    = catalog.Precautionary
	AutonomyCentered = catalog.AutonomyCentered
	CareEthics       = catalog.CareEthics
)

// The engineering perspectives of the moderated-debate seed, in its order.
const (
	PerformanceAdvocate   = catalog.PerformanceAdvocate
	SimplicityAdvocate    = catalog.SimplicityAdvocate
	SecurityAdvocate      = catalog.SecurityAdvocate
	FutureFlexibility     = catalog.FutureFlexibility
	UserExperience        = catalog.UserExperience
	OperationalSimplicity = catalog.OperationalSimplicity
)

// The kinds of catalog entries.
const (
	KindPhilosophical = catalog.KindPhilosophical
	KindPerspective   = catalog.KindPerspective
)

// Frameworks returns the seed's ten philosophical frameworks, in its order
// ([catalog.Frameworks]).
func Frameworks() []FrameworkInfo { return catalog.Frameworks() }

// Perspectives returns the six built-in engineering perspectives
// ([catalog.Perspectives]).
func Perspectives() []FrameworkInfo { return catalog.Perspectives() }

// LookupFramework returns the default catalog's entry for id
// ([catalog.LookupFramework]).
func LookupFramework(id Framework) (FrameworkInfo, bool) { return catalog.LookupFramework(id) }

// DefaultCatalog is the built-in catalog ([catalog.DefaultCatalog]).
func DefaultCatalog() *Catalog { return catalog.DefaultCatalog() }
