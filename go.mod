module policyevolve

go 1.25
