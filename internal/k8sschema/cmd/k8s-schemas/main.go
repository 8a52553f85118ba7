// Command k8s-schemas writes kubeconform's strict standalone schemas, one
// per kind, from the Kubernetes OpenAPI v2 document (package k8sschema).
//
//	k8s-schemas -swagger swagger.json -out DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcp-router/mcp-router/internal/k8sschema"
)

func main() {
	swagger := flag.String("swagger", "", "the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json of k8s.io/kubernetes)")
	out := flag.String("out", "", "directory to write the schemas into")
	flag.Parse()
	if *swagger == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: k8s-schemas -swagger swagger.json -out DIR")
		os.Exit(2)
	}
	f, err := os.Open(*swagger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-schemas:", err)
		os.Exit(1)
	}
	defer f.Close()
	n, err := k8sschema.Generate(f, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-schemas:", err)
		os.Exit(1)
	}
	fmt.Printf("k8s-schemas: %d schemas in %s\n", n, *out)
}
