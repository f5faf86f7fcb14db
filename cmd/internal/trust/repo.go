package trust

import "github.com/mcpctl/mcpctl/gate"

// Repo is a repository's project file, read once and checked against the trust records.
type Repo struct {
	File    string       // REPO/.mcpctl/project.yaml, absolute
	Project gate.Project // parsed from the bytes that were checked; named after the repository
	Trusted bool         // false: serve the library and the gate, start none of Project.Servers
	Reason  string       // why it is or is not trusted; when not, names the command that trusts it
}

// LoadRepo finds the repository project from dir upwards (ErrNotFound when there is none),
// parses it, and checks the very bytes it parsed against the store, so the file cannot change
// between the check and its use.
func (s Store) LoadRepo(dir string) (Repo, error) {
	file, err := Find(dir)
	if err != nil {
		return Repo{}, err
	}
	data, err := ReadFile(file)
	if err != nil {
		return Repo{}, err
	}
	p, err := gate.ParseProject(file, data)
	if err != nil {
		return Repo{}, err
	}
	p.Name = gate.RepoProjectName(RepoDir(file))
	ok, why := s.TrustedData(file, data)
	return Repo{File: file, Project: p, Trusted: ok, Reason: why}, nil
}
