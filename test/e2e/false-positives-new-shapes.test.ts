import { describe, expect, it } from 'vitest';
import { check, type ControllerDefinition, type Scenario } from '../../src/index.js';
import { propertiesOf } from '../helpers/false-positives.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';

/**
 * The corpus cases of stop 42 (sync-waves, node-upgrade, gang-scheduler): scenarios their first
 * versions failed on, replayed with every property (the case's own in place of the built-ins), so a
 * regression of the case's configuration or of the harness shows here, not only in a hunt. (Their
 * gate and their buggy twins run in false-positives-a/-b with the rest of the corpus.)
 */
async function judgeCase(name: string, scenario: Scenario, controllers?: readonly ControllerDefinition[]): Promise<string> {
  const c = falsePositiveCorpus.find((x) => x.name === name)!;
  const out = await check([...(controllers ?? c.controllers)], { ...c.options, properties: propertiesOf(c), runs: 1, seed: 1, shrink: false, corpus: { scenarios: [scenario] } });
  return out.ok ? 'passed' : `${out.property}: ${out.summary}`;
}

describe('corpus cases of new shapes: findings replayed', () => {
  // hunt-fp-rate --runs 200 --seeds 201 --only corpus:node-upgrade, run 87: API errors (per-item
  // backoff) kept the orchestrator from node-a for the 9 s the plan lived; the fault-free run had
  // upgraded it. Where a deleted plan's walk stopped is pace: same-end-state masks the walk's Node
  // fields (convergence checks them while a plan lives)
  const midWalk: Scenario = {"seed": 1266339824, "controllers": [{"name": "node-upgrade"}], "environment": [{"name": "kubelet-upgrade"}], "initialObjects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-b", "labels": {"kubernetes.io/hostname": "node-b"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-c", "labels": {"kubernetes.io/hostname": "node-c"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-a", "namespace": "default"}, "spec": {"nodeName": "node-a", "containers": [{"name": "app", "image": "web:1"}]}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-b", "namespace": "default"}, "spec": {"nodeName": "node-b", "containers": [{"name": "app", "image": "web:1"}]}}], "workload": [{"at": 1800, "kind": "UpgradePlan", "key": "cluster", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "3"}}}}, {"at": 6900, "type": "create", "object": {"kind": "UpgradePlan", "metadata": {"name": "cluster"}, "spec": {"version": "v1.30.1"}}}, {"at": 7200, "kind": "UpgradePlan", "key": "cluster", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "1"}}}}, {"at": 16200, "kind": "UpgradePlan", "key": "cluster", "type": "patch", "patch": {"spec": {"version": "v1.30.1"}}}, {"at": 16200, "kind": "UpgradePlan", "key": "cluster", "type": "delete"}], "faults": {"events": [{"kind": "drift", "at": 22544, "params": {"action": "data", "pick": 1, "external": true}}, {"kind": "list-order", "nth": 24, "params": {"order": 73}}, {"kind": "event-loss", "nth": 27}, {"kind": "reordering", "nth": 13, "params": {"holdMs": 2453}}], "background": [{"kind": "event-loss", "rate": 0.47}, {"kind": "api-error", "rate": 0.49, "params": {"status": 503}}, {"kind": "list-order", "rate": 0.09}]}};
  it('node-upgrade: a plan deleted mid-walk leaves the Nodes where its walk had got, as a slower fault-free run does', { timeout: 60_000 }, async () => {
    expect(await judgeCase('node-upgrade', midWalk)).toBe('passed');
  });

  // hunt-fp-rate --search guided --runs 200 --seeds 201 --only corpus:node-upgrade, run 18 (and
  // hunt-systematic-fp: delay #24, #26, #38): the plan went back to v1.30.1 while node-c rebooted
  // towards v1.31.0, on v1.30.1 still; the first kubelet-upgrade actor saw its target equal to its
  // version and never brought it back Ready (it failed without any fault). A reboot under way now finishes
  const backWhileRebooting: Scenario = {"seed": 1917783109, "controllers": [{"name": "node-upgrade"}], "environment": [{"name": "kubelet-upgrade"}], "initialObjects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-b", "labels": {"kubernetes.io/hostname": "node-b"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-c", "labels": {"kubernetes.io/hostname": "node-c"}}, "spec": {}, "status": {"nodeInfo": {"kubeletVersion": "v1.29.4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-a", "namespace": "default"}, "spec": {"nodeName": "node-a", "containers": [{"name": "app", "image": "web:1"}]}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-b", "namespace": "default"}, "spec": {"nodeName": "node-b", "containers": [{"name": "app", "image": "web:1"}]}}], "workload": [{"at": 4800, "kind": "UpgradePlan", "key": "cluster", "type": "delete"}, {"at": 6000, "type": "create", "object": {"kind": "UpgradePlan", "metadata": {"name": "cluster"}, "spec": {"version": "v1.30.1"}}}, {"at": 17700, "kind": "UpgradePlan", "key": "cluster", "type": "update", "spec": {"version": "v1.31.0"}}, {"at": 23700, "kind": "UpgradePlan", "key": "cluster", "type": "update", "spec": {"version": "v1.30.1"}}, {"at": 29100, "kind": "UpgradePlan", "key": "cluster", "type": "reapply"}], "faults": {"events": [{"kind": "environment-pod-eviction", "at": 13602, "params": {"node": 1}}, {"kind": "duplication", "nth": 1, "params": {"replay": 1, "afterMs": 3}}, {"kind": "api-conflict", "nth": 26}, {"kind": "coalescing", "nth": 6, "params": {"ms": 3356}}], "background": [{"kind": "api-conflict", "rate": 0.02}, {"kind": "environment-crash-looping-pod", "rate": 0.48}, {"kind": "environment-pod-eviction", "rate": 0.26}]}};
  it('node-upgrade: a plan set back to the version a rebooting node still runs: the reboot finishes and the walk ends', { timeout: 60_000 }, async () => {
    expect(await judgeCase('node-upgrade', backWhileRebooting)).toBe('passed');
  });

  // the case's first gang-all-or-nothing judged a PodGroup made again (the recreation fault) whose
  // members were already bound as admitted without a placement: its members bound before count
  const recreatedGroup: Scenario = {"seed": 0, "controllers": [{"name": "gang-scheduler"}], "initialObjects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-b", "labels": {"kubernetes.io/hostname": "node-b"}}, "spec": {}, "status": {"capacity": {"cpu": "2", "pods": "110"}, "allocatable": {"cpu": "2", "pods": "110"}}}, {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "infer", "namespace": "default"}, "spec": {"minMember": 2}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "infer-0", "namespace": "default", "labels": {"scheduling.x-k8s.io/pod-group": "infer"}}, "spec": {"containers": [{"name": "worker", "image": "infer:1", "resources": {"requests": {"cpu": "1"}}}]}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "infer-1", "namespace": "default", "labels": {"scheduling.x-k8s.io/pod-group": "infer"}}, "spec": {"containers": [{"name": "worker", "image": "infer:1", "resources": {"requests": {"cpu": "1"}}}]}}], "workload": [], "faults": {"events": [{"kind": "recreation", "at": 1, "params": {"pick": 0, "gapMs": 0}}], "background": []}};
  it('gang-scheduler: a PodGroup made again over its bound members is not a gang admitted short of its quorum', { timeout: 60_000 }, async () => {
    expect(await judgeCase('gang-scheduler', recreatedGroup)).toBe('passed');
  });
});
