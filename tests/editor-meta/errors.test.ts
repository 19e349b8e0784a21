import { describe, it } from 'vitest';
import { readmeWithNodeList } from '../../editor-meta/docs.ts';
import { describeNodeType, editorMetaFor } from '../../editor-meta/index.ts';
import { graphJsonSchema } from '../../editor-meta/schema.ts';
import { BlendTwoType } from '../../nodes/BlendTwo.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';
import { expectAnimGraphError } from '../support/errors.ts';

describe('editor meta throws AnimGraphErrors with a code', () => {
  it('a meta that does not match its node type\'s spec: invalid-data', () => {
    expectAnimGraphError(() => describeNodeType(BlendTwoType, editorMetaFor('BlendList')!), 'invalid-data', /^editor meta for BlendTwo does not match the runtime:\n {2}/);
  });

  it('a schema of node types one of which is named as the output or listed twice: node-type, as register says', () => {
    expectAnimGraphError(() => graphJsonSchema([...builtInNodeTypes, OutputType]), 'node-type', "'Output' is reserved for the graph output");
    expectAnimGraphError(() => graphJsonSchema([...builtInNodeTypes, BlendTwoType]), 'node-type', "node type 'BlendTwo' is listed twice");
  });

  it('a README without the node list markers: invalid-argument', () => {
    expectAnimGraphError(() => readmeWithNodeList('# no list'), 'invalid-argument', 'the README has no node list markers (README_NODES_START, README_NODES_END)');
  });
});
