// Written by hand in the shape mdatagen generates (mdatagen is not served
// here): every test of the package runs under goleak.

package tenantprocessor

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
