/**
 * `Template.fromStack` and `Annotations.fromStack` of aws-cdk-lib/assertions, once per stack. The first reads the
 * app's cached assembly but parses a nested stack's template file again and checks the template for cycles on
 * every call; the second synthesizes the whole app again (force) on every call. The infra tests look at the same
 * few stacks hundreds of times (a template per function, errors then warnings per stack): a stack of a built app
 * is not changed after its first synth here, so its template and annotations are read once.
 */
import type { Stack, Stage } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';

const templates = new WeakMap<Stack, Template>();
const annotations = new WeakMap<Stack, Annotations>();

/** `Template.fromStack(stack)`, memoized. */
export function templateOf(stack: Stack): Template {
  let t = templates.get(stack);
  if (!t) templates.set(stack, (t = Template.fromStack(stack)));
  return t;
}

/**
 * `Annotations.fromStack(stack)` without its forced synthesis: the stack's messages from the app's assembly (the
 * one its first synth cached), read once. Built with the constructor `fromStack` itself calls (private in the
 * typings); that it sees every message is checked, so a change of that constructor fails here instead of making
 * "no finding" pass on nothing.
 */
export function annotationsOf(stack: Stack): Annotations {
  let a = annotations.get(stack);
  if (!a) {
    const messages = (stack.node.root as Stage).synth().getStackArtifact(stack.artifactId).messages;
    a = new (Annotations as unknown as new (m: typeof messages) => Annotations)(messages);
    const any = Match.anyValue();
    const seen = a.findError('*', any).length + a.findWarning('*', any).length + a.findInfo('*', any).length;
    if (seen !== messages.length) throw new Error(`annotationsOf(${stack.node.path}): ${seen} of ${messages.length} messages read`);
    annotations.set(stack, a);
  }
  return a;
}
