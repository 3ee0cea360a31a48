package profiles

// parseAgentSchema reads an agent configuration schema (Profiles §2.16): the YAML of
// agent-configuration-schema.yaml, or a fenced block of profile.md, whose top key is
// agent_configuration_schema.
func parseAgentSchema(file string, data []byte, d *diagnostics) AgentConfigSchema {
	schema := AgentConfigSchema{Declared: true, Position: Position{File: file, Line: 1}}
	root, ok := decodeYAML(file, data, d)
	if !ok {
		return schema
	}
	r := newObjectReader(d, file, "", "", root)
	defer r.finish()
	top := r.object("agent_configuration_schema", true)
	if top == nil {
		return schema
	}
	defer top.finish()
	schema.Position.Line = lineOf(top.node)
	seen := map[string]bool{}
	top.list("dimensions", true, func(item *objectReader) {
		dim := ConfigDimension{Position: item.position()}
		dim.ID = item.str("identifier", true)
		dim.Type = ConfigType(item.enum("type", true, string(ConfigEnum), string(ConfigBoolean)))
		dim.Description = item.str("description", true)
		dim.Values = item.strList("values", false)
		// Profiles §2.16.2: unique identifiers; enums with at least two values.
		if dim.ID != "" && seen[dim.ID] {
			item.d.errorf("schema-dimension", item.atKey("identifier"), "dimension %s is declared twice (Profiles §2.16.2)", dim.ID)
		}
		seen[dim.ID] = true
		switch {
		case dim.Type == ConfigEnum && len(dim.Values) < 2:
			item.d.errorf("schema-dimension", item.atKey("values"), "enum dimension %s needs at least two values (Profiles §2.16.2)", dim.ID)
		case dim.Type == ConfigBoolean && item.has("values"):
			item.d.errorf("schema-dimension", item.atKey("values"), "boolean dimension %s takes no values", dim.ID)
		}
		if v, ok := item.value("default"); ok {
			if !isScalar(v) {
				item.d.errorf("type", item.atKey("default"), "must be a value, found %s", describe(v))
			} else {
				dim.Default, dim.HasDefault = ConfigValue(v), true
				if dim.Type != "" && !dim.Valid(dim.Default) {
					item.d.errorf("schema-dimension", item.atKey("default"), "default %q is not a valid value of %s", dim.Default, dim.ID)
				}
			}
		}
		schema.Dimensions = append(schema.Dimensions, dim)
	})
	if len(schema.Dimensions) == 0 && top.has("dimensions") {
		d.errorf("schema-dimension", at{file: file, line: lineOf(top.node)}, "the schema must define at least one dimension (Profiles §2.16.2)")
	}
	return schema
}

// findAgentSchema looks for the schema in its own file first, then in profile.md.
func findAgentSchema(files *fileSet, p *profileDoc, d *diagnostics) AgentConfigSchema {
	if data, ok := files.get(fileAgentSchema); ok {
		return parseAgentSchema(fileAgentSchema, data, d)
	}
	if p.agentSchemaBlock != nil {
		return parseAgentSchema(fileProfile, p.agentSchemaBlock.inPlace(), d)
	}
	// Profiles §2.16: a profile MUST declare a schema. The SI profile at 0.2.0-rc3 ships none
	// (it has neither file nor block); an empty schema means every dimension a scenario conditions on must be
	// reported by the agent.
	d.warnf("agent-schema-missing", at{file: fileProfile},
		"the profile declares no agent configuration schema (Profiles §2.16); %s and an agent_configuration_schema block are both absent, so no dimension has a default",
		fileAgentSchema)
	return AgentConfigSchema{}
}
