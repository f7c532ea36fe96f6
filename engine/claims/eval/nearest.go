package eval

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
)

// DescribeNearest describes the raw values nearest to a quote, part by
// part: "nearest raw: 13.70 tok/s (run: metric), …", each value printed as
// its source printed it. A part nothing is near (no value in its unit) says
// so; the text is never an empty list.
func DescribeNearest(parts []num.Number, units []string, nearest [][]Item) string {
	var near []string
	found := false
	for i, items := range nearest {
		if i >= len(parts) {
			break
		}
		if len(items) == 0 {
			unit := units[i]
			if unit == "" {
				unit = "any unit"
			}
			near = append(near, "no archived value in "+unit)
			continue
		}
		found = true
		var l []string
		for _, it := range items {
			v := Format(it.Value, printedLike(it, parts[i]))
			if it.Unit != "" {
				v += " " + it.Unit
			}
			l = append(l, fmt.Sprintf("%s (%s)", v, it.Label()))
		}
		near = append(near, strings.Join(l, ", "))
	}
	if !found {
		return "no archived run prints a value in its unit (" + strings.Join(near, " | ") + ")"
	}
	return "nearest raw: " + strings.Join(near, " | ")
}

// printedLike returns the number to format a raw item like: its own printed
// text when it has one, else the quote.
func printedLike(it Item, q num.Number) num.Number {
	if n, ok := printed(it); ok {
		return n
	}
	return q
}
