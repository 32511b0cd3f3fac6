import { KubeConfig } from '@kubernetes/client-node';
import { simulate } from '../src/index.js';
import { kubeController } from '../src/kube-rest/kube-controller.js';
const mod = await import('../bench/kube-rest.js');
void mod;
