/**
 * The zod schema of the `features` object an asset gives PoseSearchBlend: next to the feature spec
 * it describes (features.ts), so the schema, its defaults and their checks change together.
 */
import * as z from 'zod';
import { DEFAULT_SAMPLE_RATE } from './features.ts';
import { lazy } from '../../core/lazy.ts';

const channelSchema = (what: string, bonesDefault: string) => z.object({
  weight: z.number().min(0).describe(`Weight of the ${what} in the cost (0 leaves the channel out).`),
  bones: z.array(z.string().min(1)).min(1).optional().describe(`Bones whose ${what} are compared. ${bonesDefault}`),
}).strict();

/** The `features` property: the feature schema of the database, with per-channel weights. */
export const poseFeaturesSchema = lazy(() => z.object({
  rotations: channelSchema('local rotations', 'Default: every bone.').optional()
    .describe("Local rotations as quaternions (q and -q are the same rotation); root bones' with the heading removed."),
  positions: channelSchema('positions', 'Required when the weight is above 0, for example both feet and hands.').optional()
    .describe('Component-space positions relative to the root bone and its heading.'),
  velocities: channelSchema('velocities', 'Required when the weight is above 0.').optional()
    .describe('Velocities of those relative positions (which way each limb is moving).'),
  normalize: z.boolean().optional().describe('Divide each channel by its deviation over the clips (default true).'),
  sampleRate: z.number().positive().max(1000).optional().describe(`Database frames per second of clip time (default ${DEFAULT_SAMPLE_RATE}).`),
  rootBone: z.string().min(1).optional().describe('The bone positions and headings are relative to (default the skeleton root).'),
  upAxis: z.enum(['y', 'z']).optional().describe('Component-space up axis; the heading is the root bone\'s turn about it (default y).'),
}).strict());
