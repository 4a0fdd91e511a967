module github.com/duelogic/duelogic/examples/pgcli

go 1.25.0

require (
	github.com/duelogic/duelogic v0.0.0
	github.com/duelogic/duelogic/store/pgstore v0.0.0
	github.com/google/go-cmp v0.7.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace (
	github.com/duelogic/duelogic => ../..
	github.com/duelogic/duelogic/store/pgstore => ../../store/pgstore
)
